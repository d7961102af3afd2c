// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/job_follower.h"

#include <cmath>

#include "ui/engine_controller.h"

namespace ringlab::ui {
namespace {

QString timeLeft(double s)
{
    if (s < 60) return QObject::tr("%1 s").arg(std::ceil(s));
    const int whole = static_cast<int>(s);
    return QObject::tr("%1 min %2 s").arg(whole / 60).arg(whole % 60, 2, 10, QLatin1Char('0'));
}

QString textOf(const nlohmann::json &j, const char *key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                            : QString();
}

int idOf(const nlohmann::json &job)
{
    const auto it = job.find("id");
    return it != job.end() && it->is_number_integer() ? it->get<int>() : 0;
}

bool isText(const nlohmann::json &j, const char *key, bool optional = false)
{
    const auto it = j.find(key);
    return it == j.end() ? optional : it->is_string();
}

bool isInteger(const nlohmann::json &j, const char *key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number_integer();
}

// Whether a report has every field the windows read, of its type (docs/api.md, "Jobs"); a
// report from the network is checked here once, so that no reader can throw on it.
QString malformed(const nlohmann::json &job)
{
    if (!isText(job, "kind") || !isText(job, "state") || !isText(job, "error"))
        return QStringLiteral("kind, state or error is not text");
    const auto p = job.find("progress");
    if (p == job.end() || !p->is_object() || !isInteger(*p, "run") || !isInteger(*p, "runs") ||
        !isInteger(*p, "done") || !p->contains("seconds_left") ||
        !p->at("seconds_left").is_number() || !isText(*p, "step"))
        return QStringLiteral("its progress is not {run, runs, done, seconds_left, step}");
    const auto s = job.find("sessions");
    if (s == job.end() || !s->is_array()) return QStringLiteral("its sessions are not a list");
    for (const auto &id : *s)
        if (!id.is_number_integer()) return QStringLiteral("a session is not an id");
    const auto r = job.find("result");
    if (r == job.end() || r->is_null()) return {};
    if (!r->is_object()) return QStringLiteral("its result is not an object");
    if (r->contains("sweep") && (!isText(*r, "sweep") || !isInteger(*r, "completed_runs")))
        return QStringLiteral("its sweep result is not {sweep, completed_runs, ...}");
    if (!isText(*r, "report", true) || !isText(*r, "header", true))
        return QStringLiteral("its report is not text");
    if (r->contains("found") && !r->at("found").is_boolean())
        return QStringLiteral("its result's \"found\" is not true or false");
    if (const auto c = r->find("cases"); c != r->end()) {
        if (!c->is_array()) return QStringLiteral("its cases are not a list");
        for (const auto &one : *c)
            if (!one.is_object() || !isText(one, "report", true))
                return QStringLiteral("a case is not {case, rows, report}");
    }
    return {};
}

} // namespace

JobFollower::JobFollower(EngineController *engine, QObject *parent)
    : QObject(parent), engine_(engine)
{
    connect(engine_, &EngineController::jobUpdated, this, &JobFollower::take);
    // Lines lost while the stream was broken: the engine's word on the job now.
    connect(engine_, &EngineController::connectionChanged, this, [this](bool up, const QString &) {
        if (up && id_) engine_->refreshJob(id_);
    });
    connect(engine_, &EngineController::engineChanged, this, [this] {
        if (id_)
            lose(tr("This window left the engine that runs job %1; the job goes on there and "
                    "its sessions are that engine's.")
                     .arg(id_));
    });
    connect(engine_, &EngineController::jobLost, this, [this](int id, const QString &why) {
        if (id == id_) lose(why);
    });
}

void JobFollower::lose(const QString &why)
{
    nlohmann::json gone = last_;
    gone["state"] = "unfollowed";
    gone["error"] = why.toStdString();
    id_ = 0;
    last_ = gone;
    emit ended(gone);
}

Status JobFollower::start(const nlohmann::json &spec)
{
    if (id_) return refusedBecause(tr("job %1 is still going").arg(id_));
    sessions_ = 0;
    last_ = nullptr;
    // The job's stream lines may come before the reply that names it (this process's engine
    // delivers them first; a short job may even have ended): they are kept meanwhile, and
    // the newest report of the job wins. Every line is newer than the reply, which was made
    // as the job was submitted.
    early_.clear();
    submitting_ = true;
    const Result<nlohmann::json> submitted = engine_->submitJob(spec);
    submitting_ = false;
    const nlohmann::json reply = submitted.ok() ? submitted.value() : nlohmann::json();
    const int id = reply.is_object() ? idOf(reply) : 0;
    const auto early = early_.find(id);
    const nlohmann::json job = early != early_.end() ? early->second : reply;
    early_.clear();
    if (!submitted.ok()) return submitted.status();
    if (!id) return failedBecause(tr("the engine's reply names no job"));
    id_ = id;
    take(job);
    return Status::success();
}

void JobFollower::cancel()
{
    if (!id_ || cancelAsked_ == id_) return; // asked once: the engine's answer is on its way
    cancelAsked_ = id_;
    engine_->cancelJob(id_);
}

void JobFollower::take(const nlohmann::json &job)
{
    if (submitting_ && job.is_object()) early_[idOf(job)] = job;
    if (!id_ || !job.is_object() || idOf(job) != id_) return;
    if (const QString why = malformed(job); !why.isEmpty()) {
        // What is known is kept: the sessions reported so far, the kind.
        last_ = {{"id", id_},
                 {"kind", isText(job, "kind") ? job["kind"] : nlohmann::json("job")},
                 {"state", "failed"},
                 {"error", tr("The engine's report on job %1 was not understood (%2); the "
                              "job may go on there.")
                               .arg(id_)
                               .arg(why)
                               .toStdString()},
                 {"progress",
                  {{"run", 0}, {"runs", 0}, {"done", 0}, {"seconds_left", -1}, {"step", ""}}},
                 {"sessions", nlohmann::json::array()},
                 {"result", nlohmann::json::object()}};
        id_ = 0;
        emit ended(last_);
        return;
    }
    last_ = job;
    const auto &sessions = job.at("sessions");
    for (; sessions_ < sessions.size(); ++sessions_)
        emit sessionAdded(sessions.at(sessions_).get<qint64>());
    if (job.at("state").get<std::string>() == "running") {
        emit updated(job);
        return;
    }
    id_ = 0;
    emit ended(last_);
}

QString JobFollower::progressText(const nlohmann::json &job)
{
    const auto p = job.value("progress", nlohmann::json::object());
    const int run = p.value("run", 0), runs = p.value("runs", 0);
    if (run <= 0) return tr("Starting…");
    QString text = tr("Run %1 of %2").arg(run).arg(runs);
    if (const QString step = textOf(p, "step"); !step.isEmpty())
        text += QStringLiteral(": ") + step;
    if (const double left = p.value("seconds_left", -1.0); left >= 0)
        text += tr("; about %1 left").arg(timeLeft(left));
    return text;
}

QString JobFollower::endText(const nlohmann::json &job)
{
    const QString state = textOf(job, "state");
    const auto p = job.value("progress", nlohmann::json::object());
    if (state == "completed") return tr("Done.");
    if (state == "cancelled")
        return tr("Cancelled after %1 of %2 runs: the run going was interrupted, the runs "
                  "measured are kept.")
            .arg(p.value("done", 0))
            .arg(p.value("runs", 0));
    if (state == "interrupted")
        return tr("The engine stopped: the job was interrupted after %1 of %2 runs; the runs "
                  "measured are kept.")
            .arg(p.value("done", 0))
            .arg(p.value("runs", 0));
    const QString error = textOf(job, "error");
    return error.isEmpty() ? tr("The job ended %1.").arg(state) : error;
}

} // namespace ringlab::ui
