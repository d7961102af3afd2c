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
        if (!id_) return;
        nlohmann::json gone = last_;
        gone["state"] = "unfollowed";
        gone["error"] = tr("This window left the engine that runs job %1; the job goes on "
                           "there and its sessions are that engine's.")
                            .arg(id_)
                            .toStdString();
        id_ = 0;
        last_ = gone;
        emit ended(gone);
    });
}

bool JobFollower::start(const nlohmann::json &spec, QString *error)
{
    if (id_) {
        if (error) *error = tr("job %1 is still going").arg(id_);
        return false;
    }
    sessions_ = 0;
    last_ = nullptr;
    // The submit's stream line may come before its reply: the id is known from the reply.
    const nlohmann::json job = engine_->submitJob(spec, error);
    if (!job.is_object()) return false;
    id_ = job.value("id", 0);
    take(job);
    return id_ != 0;
}

void JobFollower::cancel()
{
    if (id_) engine_->cancelJob(id_);
}

void JobFollower::take(const nlohmann::json &job)
{
    if (!id_ || !job.is_object() || job.value("id", 0) != id_) return;
    try {
        last_ = job;
        const auto &sessions = job.at("sessions");
        for (; sessions_ < sessions.size(); ++sessions_)
            emit sessionAdded(sessions.at(sessions_).get<qint64>());
        if (job.at("state").get<std::string>() == "running") {
            emit updated(job);
            return;
        }
    } catch (const nlohmann::json::exception &e) { // the network's: never trusted whole
        last_["state"] = "failed";
        last_["error"] = tr("the engine's report on job %1 was not understood: %2")
                             .arg(id_)
                             .arg(e.what())
                             .toStdString();
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
