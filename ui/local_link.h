// SPDX-License-Identifier: GPL-2.0-or-later
// The engine in the desktop's own process, reached through the same API as a served one
// (RunApi::handle, and a StreamHub watcher for the stream) rather than by calling the run
// service directly: what the window does locally and on a lab host is one path. Requests are
// answered at once; the stream's lines are delivered from the event loop, and those a request
// caused (the last samples of a stop) before its reply.
#pragma once

#include <memory>

#include "engine/run/run_api.h"
#include "ui/engine_link.h"

namespace ringlab::ui {

class LocalLink final : public EngineLink {
    Q_OBJECT
  public:
    // Opens the session database; throws DbError when it cannot be opened. `devices`: the
    // desktop's (the registry's); it outlives the link.
    LocalLink(RunApiOptions options, const DeviceProvider &devices, QObject *parent = nullptr);
    ~LocalLink() override; // a run still going is stopped and its session completed

    Reply call(const QByteArray &method, const QString &path,
               const nlohmann::json &body = nlohmann::json::object()) override;
    void callLater(const QByteArray &method, const QString &path, const nlohmann::json &body,
                   std::function<void(const Reply &)> done) override;
    void openStream() override;
    void close() override;

    RunApi &api() { return *api_; }

  private:
    Reply handle(const QByteArray &method, const QString &path, const nlohmann::json &body);
    void drain(); // the stream's lines so far, as lineReceived

    std::unique_ptr<RunApi> api_;
    std::shared_ptr<Watcher> watcher_;
};

} // namespace ringlab::ui
