// SPDX-License-Identifier: GPL-2.0-or-later
// One job of the engine's, started and followed from a window (the Sweep tab, the
// Reproduce dialog): it is submitted through the EngineController (POST /v1/jobs on the
// engine in this process or the attached one), and its typed reports ({"type":"job",...}
// lines: progress as counts and time left, sessions, result) come back as signals. Nothing
// is read from English text.
#pragma once

#include "ui/status_text.h"

#include <QObject>
#include <QString>
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>

namespace ringlab::ui {

class EngineController;

class JobFollower : public QObject {
    Q_OBJECT
  public:
    explicit JobFollower(EngineController *engine, QObject *parent = nullptr);

    // Submits the job ({"kind", ...} in the API's words); false with the engine's refusal
    // (a parameter, or what holds the measurement).
    Status start(const nlohmann::json &spec);
    // Asks the engine to cancel it; `ended` follows when the run going has stopped.
    void cancel();
    bool running() const { return id_ != 0; }
    // The job followed (0: none), and its last report.
    int id() const { return id_; }
    const nlohmann::json &last() const { return last_; }

    // For people: "Run 3 of 10: point 2 (poll.sleep_min_us=50), run 1; about 1 min 20 s left".
    static QString progressText(const nlohmann::json &job);
    // How it ended: "Done.", "Cancelled after 3 of 10 runs: …", or the engine's error.
    static QString endText(const nlohmann::json &job);

  signals:
    // A report while it runs (its progress, a session, the result so far).
    void updated(const nlohmann::json &job);
    // A new session of the job's is recorded (the window's session list follows).
    void sessionAdded(qint64 session);
    // The last report: the job has ended (or the window no longer reaches its engine).
    void ended(const nlohmann::json &job);

  private:
    void take(const nlohmann::json &job);
    void lose(const QString &why); // ends following: the job is out of reach

    EngineController *engine_;
    int id_ = 0;
    std::size_t sessions_ = 0; // reported so far
    nlohmann::json last_;
    int cancelAsked_ = 0;                 // the job a cancel was asked for
    bool submitting_ = false;             // the submit's reply is awaited
    std::map<int, nlohmann::json> early_; // reports heard meanwhile, by job
};

} // namespace ringlab::ui
