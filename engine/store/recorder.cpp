// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/store/recorder.h"

#include <pthread.h>

#include <chrono>

namespace ringlab {
namespace {

std::string commitCount(std::uint64_t n)
{
    return std::to_string(n) + (n == 1 ? " commit" : " commits");
}

// The recorder only appends: the B-trees' right edges are all it touches again, so a small
// page cache does (SQLite's default of 2 MB filled in the first minutes of every long run,
// and that was most of a recording process's growth in memory; see bench/soak).
std::unique_ptr<SessionStore> openForAppending(const std::filesystem::path &db)
{
    auto store = std::make_unique<SessionStore>(db);
    store->db().exec("PRAGMA cache_size = -256"); // KiB
    return store;
}

} // namespace

Recorder::Recorder(const std::filesystem::path &db, std::int64_t session, std::int64_t flushNs,
                   ErrorFn onError)
    : store_(openForAppending(db)), session_(session), flushNs_(flushNs),
      onError_(std::move(onError)), thread_([this](std::stop_token st) { run(st); })
{
}

Recorder::~Recorder()
{
    if (thread_.joinable()) finish("completed");
}

void Recorder::onSample(const std::shared_ptr<const Sample> &s)
{
    std::lock_guard lock(mutex_);
    if (sessionGone_) {
        ++droppedSamples_; // nowhere to keep it: counted as lost
        return;
    }
    samples_.push_back(s);
}

void Recorder::onEvent(const Event &e)
{
    std::lock_guard lock(mutex_);
    if (sessionGone_) {
        ++droppedEvents_;
        return;
    }
    events_.push_back(e);
}

void Recorder::onDropped(std::uint64_t samples, std::uint64_t events)
{
    std::lock_guard lock(mutex_);
    droppedSamples_ += samples;
    droppedEvents_ += events;
    failed_ = true;
    lastError_ = "the recorder fell behind the engine: " + std::to_string(droppedSamples_) +
                 " samples and " + std::to_string(droppedEvents_) +
                 " events did not fit its queue of " + std::to_string(kRecorderQueue);
}

std::uint64_t Recorder::timesBehind() const
{
    std::lock_guard lock(mutex_);
    return behind_;
}

std::uint64_t Recorder::samplesWritten() const
{
    std::lock_guard lock(mutex_);
    return written_;
}

void Recorder::flush(std::vector<std::shared_ptr<const Sample>> &samples,
                     std::vector<Event> &events)
{
    if (samples.empty() && events.empty()) return;
    // Samples of more than a second waiting at once: the disk is not keeping up. Say so in
    // the session itself, and keep everything.
    double waiting = 0;
    for (const auto &s : samples)
        waiting += s->interval;
    if (waiting > 1.0 + 1e-9) {
        Event warn;
        warn.t = samples.back()->t;
        warn.kind = "warning";
        warn.source = "recorder";
        warn.message =
            "recorder behind: " + std::to_string(samples.size()) + " samples waited for one commit";
        events.push_back(warn);
        std::lock_guard lock(mutex_);
        ++behind_;
    }
    try {
        store_->append(session_, samples, events);
        std::string recovered;
        {
            std::lock_guard lock(mutex_);
            written_ += samples.size();
            if (failedCommits_ > 0)
                recovered = "database commits work again after " + commitCount(failedCommits_) +
                            " that failed; every sample waiting was written";
            failedCommits_ = 0;
            streakCause_ = {};
        }
        if (onError_ && !recovered.empty()) onError_(recovered);
    } catch (const DbError &e) {
        // The session deleted under the run (its rows may not outlive it: schema 6's foreign
        // keys): nothing later can be kept either. Said once; the rest is counted as lost.
        bool gone = false;
        try {
            SessionInfo info;
            gone = !store_->get(session_, info);
        } catch (const DbError &) {
        }
        std::string message = e.what();
        std::string earlier; // the end of a streak of another error
        bool tell = true;
        {
            std::lock_guard lock(mutex_);
            failed_ = true;
            if (gone) {
                tell = !sessionGone_;
                sessionGone_ = true;
                droppedSamples_ += samples.size() + samples_.size();
                droppedEvents_ += events.size() + events_.size();
                samples_.clear();
                events_.clear();
                message = "session " + std::to_string(session_) +
                          " was deleted while it was recorded: its samples from then on were "
                          "not kept";
            } else {
                // Put them back: a later flush (e.g. after space was freed) may still succeed.
                samples_.insert(samples_.begin(), samples.begin(), samples.end());
                events_.insert(events_.begin(), events.begin(), events.end());
                // A disk that stays full fails every commit the same way: said once.
                // The same cause (a full disk) fails whichever statement comes first in a
                // commit: the streak is the cause's, not the message's.
                const std::pair<int, int> cause{e.code(), e.systemErrno()};
                tell = failedCommits_ == 0 || cause != streakCause_;
                if (tell) {
                    if (failedCommits_ > 1)
                        earlier = "that error: " + commitCount(failedCommits_) + " failed in a row";
                    failedCommits_ = 0;
                    streakCause_ = cause;
                }
                ++failedCommits_;
            }
            lastError_ = message;
        }
        if (onError_ && !earlier.empty()) onError_(earlier);
        if (onError_ && tell)
            onError_(gone ? message
                          : message + " (the samples are kept in memory and written when a "
                                      "commit works again; a repeat is not said again)");
    }
    samples.clear();
    events.clear();
}

void Recorder::run(std::stop_token st)
{
    pthread_setname_np(pthread_self(), "recorder");
    std::vector<std::shared_ptr<const Sample>> samples;
    std::vector<Event> events;
    while (!st.stop_requested()) {
        {
            std::unique_lock lock(mutex_);
            cv_.wait_for(lock, st, std::chrono::nanoseconds(flushNs_), [] { return false; });
            samples.swap(samples_);
            events.swap(events_);
        }
        flush(samples, events);
    }
}

std::uint64_t Recorder::samplesLost() const
{
    std::lock_guard lock(mutex_);
    return samples_.size() + droppedSamples_;
}

std::string Recorder::lastError() const
{
    std::lock_guard lock(mutex_);
    return lastError_;
}

void Recorder::finish(const std::string &status)
{
    thread_.request_stop();
    if (thread_.joinable()) thread_.join();
    std::vector<std::shared_ptr<const Sample>> samples;
    std::vector<Event> events;
    {
        std::lock_guard lock(mutex_);
        samples.swap(samples_);
        events.swap(events_);
    }
    flush(samples, events);
    {
        std::lock_guard lock(mutex_);
        if (sessionGone_) return; // no session to finish
    }
    if (failedCommits_ > 1 && onError_)
        onError_("that error: " + commitCount(failedCommits_) +
                 " failed in a row, until the run's end");
    try {
        const bool lost = !samples_.empty() || droppedSamples_ > 0 || droppedEvents_ > 0;
        store_->finishSession(session_, failed_ && lost ? "failed" : status);
    } catch (const DbError &e) {
        if (onError_) onError_(e.what());
    }
}

} // namespace ringlab
