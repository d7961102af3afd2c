// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/queued_subscriber.h"

#include <pthread.h>

namespace ringlab {

QueuedSubscriber::QueuedSubscriber(std::shared_ptr<Subscriber> inner, std::string name,
                                   std::size_t capacity)
    : inner_(std::move(inner)), name_(std::move(name)), capacity_(capacity ? capacity : 1),
      ring_(capacity_)
{
    thread_ = std::thread([this] { run(); });
}

QueuedSubscriber::~QueuedSubscriber()
{
    close();
}

std::size_t QueuedSubscriber::queued() const
{
    return static_cast<std::size_t>(tail_.load() - head_.load());
}

bool QueuedSubscriber::push(Item &&item)
{
    std::lock_guard lock(producerMutex_);
    if (closing_.load()) return false;
    const std::uint64_t t = tail_.load(std::memory_order_relaxed);
    if (t - head_.load(std::memory_order_acquire) >= capacity_) return false;
    ring_[t % capacity_] = std::move(item);
    tail_.store(t + 1, std::memory_order_release);
    wake_.fetch_add(1);
    wake_.notify_one();
    return true;
}

void QueuedSubscriber::onSample(const std::shared_ptr<const Sample> &s)
{
    if (!push(Item{s, nullptr})) droppedSamples_.fetch_add(1);
}

void QueuedSubscriber::onEvent(const Event &e)
{
    bool queued = false;
    try {
        queued = push(Item{nullptr, std::make_unique<Event>(e)});
    } catch (const std::bad_alloc &) { // no memory for the copy: counted as dropped
    }
    if (!queued) droppedEvents_.fetch_add(1);
}

void QueuedSubscriber::reportDrops()
{
    const std::uint64_t s = droppedSamples_.load(), e = droppedEvents_.load();
    if (s == reportedSamples_ && e == reportedEvents_) return;
    try {
        inner_->onDropped(s - reportedSamples_, e - reportedEvents_);
    } catch (...) { // a consumer's failure stays on its own thread
    }
    reportedSamples_ = s;
    reportedEvents_ = e;
}

void QueuedSubscriber::deliverAll()
{
    std::uint64_t h = head_.load(std::memory_order_relaxed);
    for (;;) {
        reportDrops(); // what was lost comes before what follows the gap
        if (h == tail_.load(std::memory_order_acquire)) return;
        Item item = std::move(ring_[h % capacity_]);
        try {
            if (item.sample)
                inner_->onSample(item.sample);
            else if (item.event)
                inner_->onEvent(*item.event);
        } catch (...) { // a consumer's failure stays on its own thread
        }
        item = {};
        head_.store(++h, std::memory_order_release);
        progress_.fetch_add(1);
        progress_.notify_all();
    }
}

void QueuedSubscriber::run()
{
    const std::string thread = ("q:" + name_).substr(0, 15);
    pthread_setname_np(pthread_self(), thread.c_str());
    for (;;) {
        const std::uint32_t w = wake_.load();
        deliverAll();
        if (closing_.load()) {
            deliverAll();
            finished_.store(true);
            progress_.fetch_add(1);
            progress_.notify_all();
            return;
        }
        wake_.wait(w);
    }
}

void QueuedSubscriber::flush()
{
    const std::uint64_t target = tail_.load();
    for (;;) {
        const std::uint32_t p = progress_.load();
        if (head_.load() >= target || finished_.load()) return;
        progress_.wait(p);
    }
}

void QueuedSubscriber::close()
{
    std::lock_guard lock(closeMutex_);
    if (!thread_.joinable()) return;
    {
        std::lock_guard producers(producerMutex_); // no push is half done
        closing_.store(true);
    }
    wake_.fetch_add(1);
    wake_.notify_one();
    thread_.join();
}

} // namespace ringlab
