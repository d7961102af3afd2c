// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/work_queue.h"

#include <algorithm>
#include <chrono>

#include "engine/datapath/clock.h"

namespace ringlab {
namespace {

bool contains(const std::vector<const WorkItem *> &v, const WorkItem *w)
{
    return std::find(v.begin(), v.end(), w) != v.end();
}

bool removeOne(std::vector<const WorkItem *> &v, const WorkItem *w)
{
    const auto it = std::find(v.begin(), v.end(), w);
    if (it == v.end()) return false;
    *it = v.back();
    v.pop_back();
    return true;
}

} // namespace

WorkQueue::WorkQueue(ThreadRegistry &reg, int threads, const std::string &name, const Clock &clock)
    : clock_(clock)
{
    workers_.reserve(static_cast<std::size_t>(threads));
    busy_.reserve(static_cast<std::size_t>(threads)); // no allocation while running
    rerun_.reserve(static_cast<std::size_t>(threads));
    for (int k = 0; k < threads; ++k)
        workers_.emplace_back(reg, name + "/" + std::to_string(k),
                              [this](std::stop_token st, ThreadEntry &) { worker(st); });
}

void WorkQueue::enqueueLocked(WorkItem *w)
{
    w->next = nullptr;
    if (tail_)
        tail_->next = w;
    else
        head_ = w;
    tail_ = w;
    ++depth_;
}

bool WorkQueue::queue(WorkItem *w)
{
    if (w->pending.exchange(true, std::memory_order_acq_rel)) return false;
    bool wake = false;
    {
        std::lock_guard lock(mutex_);
        enqueueLocked(w);
        wake = idle_ > 0;
    }
    if (wake) cv_.notify_one();
    return true;
}

bool WorkQueue::queueDelayed(WorkItem *w, std::int64_t delayNs)
{
    if (w->pending.exchange(true, std::memory_order_acq_rel)) return false;
    {
        std::lock_guard lock(mutex_);
        w->dueNs = clock_.now() + delayNs;
        delayed_.emplace(w->dueNs, w);
    }
    cv_.notify_one(); // the earliest deadline may have changed
    return true;
}

void WorkQueue::moveDueLocked(std::int64_t now)
{
    while (!delayed_.empty() && delayed_.begin()->first <= now) {
        enqueueLocked(delayed_.begin()->second);
        delayed_.erase(delayed_.begin());
    }
}

std::size_t WorkQueue::runDue()
{
    std::size_t ran = 0;
    std::unique_lock lock(mutex_);
    moveDueLocked(clock_.now());
    while (WorkItem *w = head_) {
        head_ = w->next;
        if (!head_) tail_ = nullptr;
        --depth_;
        lock.unlock();
        w->pending.store(false, std::memory_order_release);
        w->fn(w);
        currentCounters().add(CounterId::WorkItems);
        ++ran;
        lock.lock();
    }
    return ran;
}

std::int64_t WorkQueue::nextDelayedNs() const
{
    std::lock_guard lock(mutex_);
    return delayed_.empty() ? -1 : delayed_.begin()->first;
}

std::size_t WorkQueue::depth() const
{
    std::lock_guard lock(mutex_);
    return depth_;
}

void WorkQueue::stop()
{
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    cv_.notify_all();
    for (auto &w : workers_)
        w.stop();
    workers_.clear();
}

void WorkQueue::worker(std::stop_token)
{
    Counters &c = currentCounters();
    std::unique_lock lock(mutex_);
    for (;;) {
        if (stopping_) return;
        moveDueLocked(clock_.now());
        if (head_) {
            WorkItem *w = head_;
            head_ = w->next;
            if (!head_) tail_ = nullptr;
            --depth_;
            if (contains(busy_, w)) {
                if (!contains(rerun_, w)) rerun_.push_back(w); // its worker runs it again
                continue;
            }
            busy_.push_back(w);
            for (;;) {
                lock.unlock();
                w->pending.store(false, std::memory_order_release);
                w->fn(w);
                c.add(CounterId::WorkItems);
                lock.lock();
                // Compared by address only: the item may be gone unless queued again.
                if (!removeOne(rerun_, w)) break;
            }
            removeOne(busy_, w);
            continue;
        }
        ++idle_;
        if (delayed_.empty()) {
            cv_.wait(lock);
        } else {
            const auto due = std::chrono::steady_clock::time_point(
                std::chrono::nanoseconds(delayed_.begin()->first));
            cv_.wait_until(lock, due);
        }
        --idle_;
    }
}

} // namespace ringlab
