// SPDX-License-Identifier: GPL-2.0-or-later
// The live stream of a run to its watchers: every sample and event once as a JSON line
// (the JSON-lines form of docs/cli.md), handed to each watcher's bounded queue. The engine
// never waits for a watcher: one that falls `kWatcherQueueLines` lines behind is cut off, and
// is told why in its last line. Watchers are bounded in number too.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/datapath/sample.h"

namespace ringlab {

inline constexpr std::size_t kWatcherQueueLines = 600; // a minute of samples at 10 Hz
inline constexpr std::size_t kMaxWatchers = 32;

// One watcher's queue, filled by the hub and drained by the watcher's connection.
class Watcher {
  public:
    using Line = std::shared_ptr<const std::string>;
    // Waits up to `timeoutMs` for lines; takes them all. False once the watcher has ended
    // (cut off, or the hub closed) and every line was taken.
    bool take(std::vector<Line> &out, int timeoutMs);
    bool ended() const;
    // Called, from the thread that adds it, when a line arrives at an empty queue (a watcher in
    // the engine's process wakes its own loop instead of waiting in take()). It must not block
    // or call back into the hub.
    void setNotify(std::function<void()> notify);

  private:
    friend class StreamHub;
    void push(const Line &line);
    void end(const std::string &why); // a final line saying why, then nothing more

    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<Line> lines_;
    std::function<void()> notify_;
    bool ended_ = false;
};

class StreamHub : public Subscriber {
  public:
    ~StreamHub() override;
    // A new watcher whose first line is `firstLine` (when not empty), or null when
    // kMaxWatchers are watching.
    std::shared_ptr<Watcher> watch(const std::string &firstLine = {});
    // Ends every watcher and takes no new one (the server is going away).
    void close();
    std::size_t watchers() const;

    // A line of the stream's own (the run started or stopped, the controller changed).
    void publish(const std::string &jsonLine);
    void onSample(const std::shared_ptr<const Sample> &s) override;
    void onEvent(const Event &e) override;
    std::string queueName() const override { return "stream"; }

  private:
    void fanOut(const Watcher::Line &line);
    void prune(); // mutex_ held: watchers gone or ended
    bool watched() const;

    mutable std::mutex mutex_;
    std::vector<std::weak_ptr<Watcher>> watchers_;
    bool closed_ = false;
};

} // namespace ringlab
