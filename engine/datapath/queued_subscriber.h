// SPDX-License-Identifier: GPL-2.0-or-later
// A subscriber behind a bounded queue drained on its own thread: what the engine puts in
// front of every subscriber, so that the threads that measure never wait for a consumer.
// Pushing never blocks and takes no lock the consumer can hold: the queue is a ring with one
// producer at a time (the engine serialises its calls) and one consumer, its drain thread. A
// push that finds the ring full drops the sample or event and counts it; the drain thread
// tells the consumer how many it lost (Subscriber::onDropped) between two deliveries, as soon
// as it sees them, and at close().
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/datapath/sample.h"

namespace ringlab {

class QueuedSubscriber final : public Subscriber {
  public:
    // Starts the drain thread, named "q:" + name (cut to 15 bytes). capacity >= 1: samples and
    // events queued at most.
    QueuedSubscriber(std::shared_ptr<Subscriber> inner, std::string name, std::size_t capacity);
    // close().
    ~QueuedSubscriber() override;
    QueuedSubscriber(const QueuedSubscriber &) = delete;
    QueuedSubscriber &operator=(const QueuedSubscriber &) = delete;

    // Queue, or drop and count when the queue is full: never blocks, never throws.
    void onSample(const std::shared_ptr<const Sample> &s) override;
    void onEvent(const Event &e) override;

    // Waits until everything queued before the call has been handed to the consumer (or
    // dropped by close()). It waits as long as the consumer takes: not for measuring threads.
    void flush();
    // Hands the consumer what is queued, reports any drops, and ends the drain thread. Later
    // pushes are dropped and counted. Idempotent.
    void close();

    const std::shared_ptr<Subscriber> &inner() const { return inner_; }
    const std::string &name() const { return name_; }
    std::size_t capacity() const { return capacity_; }
    // Samples and events waiting (a moment's figure).
    std::size_t queued() const;
    std::uint64_t droppedSamples() const { return droppedSamples_.load(); }
    std::uint64_t droppedEvents() const { return droppedEvents_.load(); }

  private:
    struct Item {
        std::shared_ptr<const Sample> sample;
        std::unique_ptr<Event> event; // when not a sample
    };
    bool push(Item &&item);
    void run();
    void deliverAll();
    void reportDrops();

    const std::shared_ptr<Subscriber> inner_;
    const std::string name_;
    const std::size_t capacity_;
    std::vector<Item> ring_;
    std::atomic<std::uint64_t> head_{0}; // next to take; written by the drain thread
    std::atomic<std::uint64_t> tail_{0}; // next free slot; written by the producer
    std::atomic<std::uint32_t> wake_{
        0}; // bumped by pushes and close(): the drain thread waits on it
    std::atomic<std::uint32_t> progress_{0}; // bumped by the drain thread: flush() waits on it
    std::atomic<bool> closing_{false};
    std::atomic<bool> finished_{false}; // the drain thread has delivered its last
    std::atomic<std::uint64_t> droppedSamples_{0}, droppedEvents_{0};
    std::uint64_t reportedSamples_ = 0, reportedEvents_ = 0; // drain thread only
    std::mutex producerMutex_; // producers only (the drain thread never takes it)
    std::mutex closeMutex_;    // close() against close()
    std::thread thread_;
};

} // namespace ringlab
