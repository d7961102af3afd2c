// SPDX-License-Identifier: GPL-2.0-or-later
// Records a running session: a subscriber that only queues what the engine reports, and a
// recorder thread that writes the queue to the session store in one transaction at least
// every flush interval. The datapath and the sampler never wait for the disk.
#pragma once

#include <condition_variable>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/store/session_store.h"

namespace ringlab {

inline constexpr std::size_t kRecorderQueue = 6000;

class Recorder final : public Subscriber {
  public:
    using ErrorFn = std::function<void(const std::string &)>;
    // Opens its own connection to the database file (the caller's stays free for its own
    // thread) and writes the session until finish(). flushNs: at most this long between
    // commits (a crash loses at most this much). Throws DbError when the file cannot be opened.
    Recorder(const std::filesystem::path &db, std::int64_t session,
             std::int64_t flushNs = 500'000'000, ErrorFn onError = {});
    ~Recorder() override;

    void onSample(const std::shared_ptr<const Sample> &s) override;
    void onEvent(const Event &e) override;
    // Its queue in the engine was full: what was dropped is lost to the session, counted in
    // samplesLost(), and the session ends failed.
    void onDropped(std::uint64_t samples, std::uint64_t events) override;
    std::string queueName() const override { return "recorder"; }
    // It is the record: ten minutes at 10 Hz may wait for a disk that stalls.
    std::size_t queueCapacity() const override { return kRecorderQueue; }

    // Writes what is queued, stops the thread and sets the session's final status.
    void finish(const std::string &status);
    // Batches that found more than a second's worth of samples waiting.
    std::uint64_t timesBehind() const;
    std::uint64_t samplesWritten() const;
    // After finish(): samples that could not be written (a full disk, a lost file, a queue
    // that was full), and why.
    std::uint64_t samplesLost() const;
    std::string lastError() const;

  private:
    void run(std::stop_token st);
    void flush(std::vector<std::shared_ptr<const Sample>> &samples, std::vector<Event> &events);

    std::unique_ptr<SessionStore> store_;
    const std::int64_t session_;
    const std::int64_t flushNs_;
    ErrorFn onError_;
    mutable std::mutex mutex_;
    std::condition_variable_any cv_;
    std::vector<std::shared_ptr<const Sample>> samples_;
    std::vector<Event> events_;
    std::uint64_t behind_ = 0, written_ = 0;
    std::uint64_t droppedSamples_ = 0,
                  droppedEvents_ = 0; // never queued: the engine's queue was full
    bool failed_ = false;
    bool sessionGone_ = false; // deleted while recorded: nothing more is kept
    std::string lastError_;
    // Commits that failed in a row with the same error: said once when the streak begins,
    // counted, and its end (commits work again, or the run ends) said with the count.
    std::uint64_t failedCommits_ = 0;
    std::pair<int, int> streakCause_; // DbError's code and errno
    std::jthread thread_;
};

} // namespace ringlab
