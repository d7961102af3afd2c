// SPDX-License-Identifier: GPL-2.0-or-later
// The queue the engine puts in front of every subscriber (engine/datapath/queued_subscriber):
// bounded, never blocking its producer, counting and reporting what it drops; and the engine
// with a subscriber that stops taking anything: the others and the sampling go on, and the
// run says what the slow one lost.
#include <QtTest>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>

#include "engine/datapath/queued_subscriber.h"
#include "tests/test_support.h"

using namespace ringlab;
using namespace std::chrono_literals;

namespace {

// A consumer that blocks in every call until released, and logs what it was given.
class Stuck final : public Subscriber {
  public:
    void onSample(const std::shared_ptr<const Sample> &s) override
    {
        std::unique_lock lock(mutex_);
        entered_ = true;
        cv_.notify_all();
        cv_.wait(lock, [&] { return released_; });
        samples_.push_back(s->seq);
    }
    void onEvent(const Event &e) override
    {
        std::lock_guard lock(mutex_);
        events_.push_back(e);
    }
    void onDropped(std::uint64_t samples, std::uint64_t events) override
    {
        std::lock_guard lock(mutex_);
        droppedSamples_ += samples;
        droppedEvents_ += events;
    }
    std::string queueName() const override { return "stuck"; }
    std::size_t queueCapacity() const override { return capacity; }

    bool waitEntered()
    {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, 10s, [&] { return entered_; });
    }
    void release()
    {
        std::lock_guard lock(mutex_);
        released_ = true;
        cv_.notify_all();
    }
    std::vector<std::uint64_t> samples() const
    {
        std::lock_guard lock(mutex_);
        return samples_;
    }
    std::vector<Event> events() const
    {
        std::lock_guard lock(mutex_);
        return events_;
    }
    std::uint64_t droppedSamples() const
    {
        std::lock_guard lock(mutex_);
        return droppedSamples_;
    }
    std::uint64_t droppedEvents() const
    {
        std::lock_guard lock(mutex_);
        return droppedEvents_;
    }

    std::size_t capacity = 8;

  private:
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    bool entered_ = false, released_ = false;
    std::vector<std::uint64_t> samples_;
    std::vector<Event> events_;
    std::uint64_t droppedSamples_ = 0, droppedEvents_ = 0;
};

std::shared_ptr<const Sample> sample(std::uint64_t seq)
{
    auto s = std::make_shared<Sample>();
    s->seq = seq;
    return s;
}

class Throws final : public Subscriber {
  public:
    void onSample(const std::shared_ptr<const Sample> &s) override
    {
        if (s->seq == 0) throw std::runtime_error("consumer failed");
        std::lock_guard lock(mutex_);
        ++taken_;
    }
    void onEvent(const Event &) override { throw std::runtime_error("consumer failed"); }
    int taken() const
    {
        std::lock_guard lock(mutex_);
        return taken_;
    }

  private:
    mutable std::mutex mutex_;
    int taken_ = 0;
};

} // namespace

class TstQueuedSubscriber : public QObject {
    Q_OBJECT
  private slots:
    void boundedDropsCountedNeverBlocks();
    void closeDeliversWhatIsQueued();
    void aFailingConsumerStaysOnItsThread();
    void engineSamplesOnWhileASubscriberIsStuck();
};

// The consumer holds its first sample; the producer pushes 100 times its capacity. Every
// push returns at once, exactly `capacity` are kept (the one held counts: its slot is not
// free until it is delivered), the rest are counted, and the consumer hears of them.
void TstQueuedSubscriber::boundedDropsCountedNeverBlocks()
{
    auto stuck = std::make_shared<Stuck>();
    QueuedSubscriber q(stuck, stuck->queueName(), stuck->capacity);
    q.onSample(sample(0));
    QVERIFY(stuck->waitEntered());
    const std::uint64_t total = 100 * stuck->capacity;
    auto producer = std::async(std::launch::async, [&] {
        const auto t0 = std::chrono::steady_clock::now();
        for (std::uint64_t k = 1; k < total; ++k)
            q.onSample(sample(k));
        q.onEvent(Event{0, "mark", {}, {}, {}, {}, "while stuck"});
        return std::chrono::steady_clock::now() - t0;
    });
    // A producer that blocked would still be waiting for the stuck consumer.
    QVERIFY2(producer.wait_for(30s) == std::future_status::ready, "the producer blocked");
    qInfo("%llu pushes to a full queue took %.3f ms", static_cast<unsigned long long>(total),
          std::chrono::duration<double, std::milli>(producer.get()).count());
    QCOMPARE(q.queued(), stuck->capacity);
    QCOMPARE(q.droppedSamples(), total - stuck->capacity);
    QCOMPARE(q.droppedEvents(), std::uint64_t{1});

    stuck->release();
    q.flush();
    const auto got = stuck->samples();
    QCOMPARE(got.size(), stuck->capacity);
    for (std::size_t k = 0; k < got.size(); ++k)
        QCOMPARE(got[k], std::uint64_t{k}); // the first ones, in order
    QCOMPARE(stuck->droppedSamples(), total - stuck->capacity);
    QCOMPARE(stuck->droppedEvents(), std::uint64_t{1});

    // Caught up, it takes everything again.
    q.onSample(sample(total));
    q.flush();
    QCOMPARE(stuck->samples().back(), total);
    QCOMPARE(q.droppedSamples(), total - stuck->capacity);
}

void TstQueuedSubscriber::closeDeliversWhatIsQueued()
{
    auto c = std::make_shared<SampleCollector>();
    auto q = std::make_unique<QueuedSubscriber>(c, "collector", 1000);
    for (std::uint64_t k = 0; k < 500; ++k) {
        q->onSample(sample(k));
        if (k % 100 == 0) q->onEvent(Event{0, "mark", {}, {}, {}, {}, std::to_string(k)});
    }
    q->close();
    QCOMPARE(c->samples().size(), std::size_t{500});
    QCOMPARE(c->events().size(), std::size_t{5});
    QCOMPARE(c->events()[4].message, std::string("400"));
    // After close: nothing is delivered, and it is counted.
    q->onSample(sample(500));
    QCOMPARE(q->droppedSamples(), std::uint64_t{1});
    QCOMPARE(c->samples().size(), std::size_t{500});
    q->close(); // twice is fine
    q.reset();
}

void TstQueuedSubscriber::aFailingConsumerStaysOnItsThread()
{
    auto t = std::make_shared<Throws>();
    QueuedSubscriber q(t, "throws", 16);
    q.onSample(sample(0));
    q.onEvent(Event{});
    q.onSample(sample(1));
    q.flush();
    QCOMPARE(t->taken(), 1);
}

// A subscriber that takes its first sample and never returns (a stdout nobody reads): the
// sampler goes on at its interval, the other subscriber gets every sample, a change applies
// at once, and when the stuck one is let go, the run says how much it lost.
void TstQueuedSubscriber::engineSamplesOnWhileASubscriberIsStuck()
{
    Engine engine(ParamSet{}, test::simFactory(), EngineOptions{10'000'000});
    auto stuck = std::make_shared<Stuck>();
    stuck->capacity = 20;
    auto c = std::make_shared<SampleCollector>();
    engine.subscribe(stuck);
    engine.subscribe(c);
    if (auto st = engine.start(); !st.ok()) QFAIL(st.error.c_str());
    QVERIFY(stuck->waitEntered());
    QVERIFY(c->waitSamples(50, 30s)); // well past the stuck one's capacity
    const Status st = engine.apply({{"load.rate_pps", "2000"}}, "test");
    QVERIFY2(st.ok(), st.error.c_str());
    const auto applied = [&] {
        const auto ev = c->events();
        return std::any_of(ev.begin(), ev.end(), [](const Event &e) { return e.kind == "param"; });
    };
    QTRY_VERIFY_WITH_TIMEOUT(applied(), 10000);
    const std::size_t at = c->samples().size();
    QVERIFY(c->waitSamples(at + 10, 30s));
    stuck->release();
    engine.stop();

    const auto all = c->samples();
    for (std::size_t k = 0; k < all.size(); ++k)
        QCOMPARE(all[k]->seq, std::uint64_t{k}); // every sample, none missing
    const auto ev = c->events();
    const auto warning = std::find_if(ev.begin(), ev.end(), [](const Event &e) {
        return e.kind == "warning" && e.message.rfind("stuck fell behind: ", 0) == 0;
    });
    QVERIFY(warning != ev.end());
    qInfo("%s", warning->message.c_str());
    QCOMPARE(ev.back().kind, std::string("stop"));
    // What the stuck one got and what it was told it lost add up to what was published to it
    // (the warning itself may be among what it lost).
    QCOMPARE(stuck->samples().size() + stuck->droppedSamples(), all.size());
    QVERIFY(stuck->droppedSamples() > 0);
}

QTEST_GUILESS_MAIN(TstQueuedSubscriber)
#include "tst_queued_subscriber.moc"
