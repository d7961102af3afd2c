// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/stream_hub.h"

#include <chrono>
#include <nlohmann/json.hpp>

#include "engine/metrics/sample_json.h"

namespace ringlab {

bool Watcher::take(std::vector<Line> &out, int timeoutMs)
{
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, std::chrono::milliseconds(timeoutMs),
                 [&] { return !lines_.empty() || ended_; });
    const bool took = !lines_.empty();
    out.insert(out.end(), lines_.begin(), lines_.end());
    lines_.clear();
    return !ended_ || took;
}

bool Watcher::ended() const
{
    std::lock_guard lock(mutex_);
    return ended_;
}

void Watcher::setNotify(std::function<void()> notify)
{
    std::lock_guard lock(mutex_);
    notify_ = std::move(notify);
}

void Watcher::push(const Line &line)
{
    {
        std::lock_guard lock(mutex_);
        if (ended_) return;
        if (lines_.empty() && notify_) notify_();
        if (lines_.size() >= kWatcherQueueLines) {
            lines_.clear(); // what it missed is gone; say so rather than send a hole
            lines_.push_back(std::make_shared<const std::string>(nlohmann::json{
                {"type", "end"},
                {"reason",
                 "this watcher fell " + std::to_string(kWatcherQueueLines) +
                     " lines behind and was cut off; watch again"}}.dump()));
            ended_ = true;
        } else {
            lines_.push_back(line);
        }
    }
    cv_.notify_all();
}

void Watcher::end(const std::string &why)
{
    {
        std::lock_guard lock(mutex_);
        if (ended_) return;
        if (lines_.empty() && notify_) notify_();
        lines_.push_back(std::make_shared<const std::string>(
            nlohmann::json{{"type", "end"}, {"reason", why}}.dump()));
        ended_ = true;
    }
    cv_.notify_all();
}

StreamHub::~StreamHub()
{
    close();
}

std::shared_ptr<Watcher> StreamHub::watch(const std::string &firstLine)
{
    std::lock_guard lock(mutex_);
    if (closed_) return nullptr;
    prune();
    if (watchers_.size() >= kMaxWatchers) return nullptr;
    auto w = std::make_shared<Watcher>();
    if (!firstLine.empty()) w->push(std::make_shared<const std::string>(firstLine));
    watchers_.push_back(w);
    return w;
}

void StreamHub::prune()
{
    std::erase_if(watchers_, [](const auto &w) {
        const auto p = w.lock();
        return !p || p->ended();
    });
}

void StreamHub::close()
{
    std::lock_guard lock(mutex_);
    closed_ = true;
    for (const auto &w : watchers_)
        if (auto p = w.lock()) p->end("the engine is shutting down");
    watchers_.clear();
}

std::size_t StreamHub::watchers() const
{
    std::lock_guard lock(mutex_);
    std::size_t n = 0;
    for (const auto &w : watchers_)
        if (auto p = w.lock(); p && !p->ended()) ++n;
    return n;
}

void StreamHub::fanOut(const Watcher::Line &line)
{
    std::lock_guard lock(mutex_);
    prune();
    for (const auto &w : watchers_)
        if (auto p = w.lock()) p->push(line);
}

void StreamHub::publish(const std::string &jsonLine)
{
    fanOut(std::make_shared<const std::string>(jsonLine));
}

bool StreamHub::watched() const
{
    std::lock_guard lock(mutex_);
    return !watchers_.empty();
}

// Called on the engine's threads: nothing may escape, and nobody watching costs nothing.
void StreamHub::onSample(const std::shared_ptr<const Sample> &s)
{
    if (!watched()) return;
    try {
        publish(toJson(*s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    } catch (const std::exception &) {
    }
}

void StreamHub::onEvent(const Event &e)
{
    if (!watched()) return;
    try {
        publish(toJson(e).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    } catch (const std::exception &) {
    }
}

} // namespace ringlab
