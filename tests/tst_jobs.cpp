// SPDX-License-Identifier: GPL-2.0-or-later
// Experiments are the engine's jobs (engine/experiments/job_queue.h, docs/api.md "Jobs"):
// one measurement at a time, a run start during a job and a job start during a run refused
// with what holds it and since when; a cancel that stops within 200 ms and keeps the runs
// made; job lines on the stream and every /v1/jobs reply checked against the schema.
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <httplib.h>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "api_schema.h"
#include "drivers/registry_devices.h"
#include "engine/common/host_info.h"
#include "engine/experiments/job_queue.h"
#include "engine/store/session_store.h"
#include "require.h"
#include "serve_process.h"

using nlohmann::json;
using namespace ringlab;
using ringlab::test::checkSchema;

namespace {

// The engine as `serve` makes it (app/serve_command.cpp), in this process.
struct Served {
    explicit Served(const QTemporaryDir &dir, std::size_t keptEndedJobs = kKeptEndedJobs)
    {
        RunApiOptions o;
        o.db = dir.filePath("jobs.db").toStdString();
        api = std::make_unique<RunApi>(o, registryDevices());
        jobs = std::make_shared<JobQueue>(
            JobQueueOptions{api->measurementLock(),
                            api->database(),
                            true,
                            [a = api.get()](const std::string &line) { a->publish(line); },
                            {},
                            keptEndedJobs,
                            {keptEndedJobs, 90}},
            registryDevices());
        api->attachJobs(jobs);
    }
    // Every reply is kept with its schema key, for the schema check.
    ApiReply call(const std::string &method, const std::string &path, const json &body = {},
                  const std::string &key = {},
                  const std::multimap<std::string, std::string> &query = {})
    {
        ApiRequest r;
        r.method = method;
        r.path = path;
        r.query = query;
        r.body = body.is_null() ? std::string() : body.dump();
        ApiReply reply = api->handle(r);
        replies.push_back({{"key", key.empty() ? method + " " + path : key},
                           {"status", reply.status},
                           {"body", reply.body}});
        return reply;
    }
    std::unique_ptr<RunApi> api;
    std::shared_ptr<JobQueue> jobs;
    json replies = json::array();
};

// Two short points on the simulated NIC: a sleeping poll thread, no load.
json smallSweep(const char *duration = "0.4s", const char *points = "20,200")
{
    return {{"kind", "sweep"},
            {"profile", "default"},
            {"set", {"load.rate_pps=0", "probe.rate_hz=0", "poll.mode=sleep"}},
            {"vary", std::string("poll.sleep_min_us=") + points},
            {"tie", "poll.sleep_max_us=poll.sleep_min_us"},
            {"duration", duration}};
}

} // namespace

class TstJobs : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void jobStartDuringARunIsRefused();
    void runStartDuringAJobIsRefused();
    void cancelStopsWithin200msAndKeepsTheRuns();
    void repliesAndJobLinesMatchTheSchema();
    void servedEngineRunsJobsOverHttp();
    void theHistoryIsBounded();
    void aJobRunsOnItsProfilesDeviceUnlessItNamesOne();
    void jobIdsOutliveTheEngineAndAJobItsDeathCutIsInterrupted();
    void theHistoryForgetsOldJobsAndSkipsBrokenRows();
    void aNapiReproductionIsAJobOnTheKernelLab();
};

void TstJobs::initTestCase()
{
    QProcess py;
    py.start("python3", {"-c", "import jsonschema"});
    QVERIFY2(py.waitForFinished(30'000) && py.exitCode() == 0,
             "python3-jsonschema is missing (packaging/bootstrap.sh installs it)");
}

void TstJobs::jobStartDuringARunIsRefused()
{
    QTemporaryDir dir;
    Served e(dir);
    const ApiReply run =
        e.call("POST", "/v1/run/start", {{"profile", "default"}, {"client", "alice"}});
    QCOMPARE(run.status, 201);
    const ApiReply refused = e.call("POST", "/v1/jobs", smallSweep());
    QCOMPARE(refused.status, 409);
    const QString why = QString::fromStdString(refused.body["error"].get<std::string>());
    QVERIFY2(why.contains("held by a run of profile default (client \"alice\") since 20"),
             qPrintable(why));
    QVERIFY(e.jobs->jobs().empty());
    // The run's stop gives the measurement back.
    ApiRequest stop{"POST", "/v1/run/stop", {}, "{}", run.body["control"].get<std::string>()};
    QCOMPARE(e.api->handle(stop).status, 200);
    const ApiReply accepted = e.call("POST", "/v1/jobs", smallSweep("0.2s", "20"));
    QCOMPARE(accepted.status, 201);
    QVERIFY(e.jobs->wait(accepted.body["id"].get<int>(), 30'000));
}

void TstJobs::runStartDuringAJobIsRefused()
{
    QTemporaryDir dir;
    Served e(dir);
    const ApiReply job = e.call("POST", "/v1/jobs", smallSweep());
    QCOMPARE(job.status, 201);
    const int id = job.body["id"].get<int>();
    QCOMPARE(job.body["state"].get<std::string>(), std::string("running"));

    const ApiReply start = e.call("POST", "/v1/run/start", {{"profile", "default"}});
    QCOMPARE(start.status, 409);
    const QString why = QString::fromStdString(start.body["error"].get<std::string>());
    QVERIFY2(why.startsWith("start: the measurement is held by job " + QString::number(id) +
                            " (sweep) since 20"),
             qPrintable(why));
    // Nor a second job, of any kind.
    const ApiReply second =
        e.call("POST", "/v1/jobs", json{{"kind", "reproduce"}, {"case", "stmmac"}, {"repeat", 1}});
    QCOMPARE(second.status, 409);
    QVERIFY(QString::fromStdString(second.body["error"].get<std::string>())
                .contains("held by job " + QString::number(id) + " (sweep)"));
    // The run's state says what holds the measurement; Prometheus shows the job.
    const ApiReply state = e.call("GET", "/v1/run");
    QCOMPARE(state.body["held_by"]["what"].get<std::string>(),
             "job " + std::to_string(id) + " (sweep)");
    QVERIFY(e.api->metricsText().find("ringlab_job_active{kind=\"sweep\"} 1") != std::string::npos);

    QVERIFY(e.jobs->wait(id, 30'000));
    const JobInfo done = *e.jobs->job(id);
    QCOMPARE(done.state, std::string("completed"));
    QCOMPARE(done.sessions.size(), std::size_t{2});
    QCOMPARE(done.result["completed_runs"].get<int>(), 2);
    QCOMPARE(done.progress.runs, 2);
    QCOMPARE(done.progress.done, 2); // an ended job's progress is final
    QCOMPARE(done.progress.secondsLeft, 0.0);
    // Its runs are the engine's sessions, in its database, as a sweep's.
    SessionStore store(e.api->database(), Db::Mode::ReadOnly);
    for (const auto s : done.sessions) {
        SessionInfo info;
        QVERIFY(store.get(s, info));
        QCOMPARE(info.status, std::string("completed"));
        QVERIFY(info.runGroup.rfind("sweep " + done.result["sweep"].get<std::string>(), 0) == 0);
    }
    QVERIFY(e.api->metricsText().find("ringlab_job_active{kind=\"sweep\"} 0") != std::string::npos);
    // The measurement is free again.
    QCOMPARE(e.call("POST", "/v1/run/start", {{"profile", "default"}}).status, 201);
}

void TstJobs::cancelStopsWithin200msAndKeepsTheRuns()
{
    QTemporaryDir dir;
    Served e(dir);
    const ApiReply job = e.call("POST", "/v1/jobs", smallSweep("2s", "20,200,2000"));
    QCOMPARE(job.status, 201);
    const int id = job.body["id"].get<int>();
    // Into its second run: one measured, one going.
    QTRY_VERIFY_WITH_TIMEOUT(e.jobs->job(id)->sessions.size() == 2, 30'000);
    QElapsedTimer t;
    t.start();
    const ApiReply cancelled = e.call("POST", "/v1/jobs/" + std::to_string(id) + "/cancel");
    const qint64 ms = t.elapsed();
    QCOMPARE(cancelled.status, 200);
    QCOMPARE(cancelled.body["state"].get<std::string>(), std::string("cancelled"));
    qInfo("the cancel took %lld ms", static_cast<long long>(ms));
    QVERIFY2(ms < 200, qPrintable(QString("the cancel took %1 ms").arg(ms)));
    // The measurement is free at once, and the runs made are kept.
    QCOMPARE(e.call("POST", "/v1/run/start", {{"profile", "default"}}).status, 201);
    const JobInfo info = *e.jobs->job(id);
    QCOMPARE(info.sessions.size(), std::size_t{2});
    SessionStore store(e.api->database(), Db::Mode::ReadOnly);
    SessionInfo first, second;
    QVERIFY(store.get(info.sessions[0], first) && store.get(info.sessions[1], second));
    QCOMPARE(first.status, std::string("completed"));
    QCOMPARE(second.status, std::string("interrupted"));
    QVERIFY(second.sampleCount > 0);
    QCOMPARE(info.result["completed_runs"].get<int>(), 1);
}

void TstJobs::repliesAndJobLinesMatchTheSchema()
{
    QTemporaryDir dir;
    Served e(dir);
    auto watcher = e.api->watch();
    QVERIFY(watcher);
    QCOMPARE(e.call("POST", "/v1/jobs", json{{"kind", "sweep"}, {"vary", "nonsense"}}).status, 400);
    // A body that is not an object, or a number no double holds, is refused naming it.
    for (const auto &[body, said] : std::vector<std::pair<std::string, std::string>>{
             {"[1, 2]", "not array ([1, 2])"}, {"1e999", "number overflow parsing '1e999'"}}) {
        ApiRequest bad;
        bad.method = "POST";
        bad.path = "/v1/jobs";
        bad.body = body;
        const ApiReply refused = e.api->handle(bad);
        QCOMPARE(refused.status, 400);
        QVERIFY2(refused.body["error"].get<std::string>().find(said) != std::string::npos,
                 refused.body.dump().c_str());
    }
    // A point the registry refuses is the request's mistake, named before any run.
    const ApiReply typo =
        e.call("POST", "/v1/jobs", json{{"kind", "sweep"}, {"vary", "poll.sleep_mni_us=5,10"}});
    QCOMPARE(typo.status, 400);
    const ApiReply badGoal =
        e.call("POST", "/v1/jobs",
               json{{"kind", "tune"}, {"minimize", "no_such_metric"}, {"over", "poll.budget"}});
    QCOMPARE(badGoal.status, 400);
    QVERIFY2(badGoal.body["error"].get<std::string>().find("no_such_metric") != std::string::npos,
             badGoal.body.dump().c_str());
    QVERIFY2(typo.body["error"].get<std::string>().find("poll.sleep_mni_us") != std::string::npos,
             typo.body.dump().c_str());
    const ApiReply job = e.call("POST", "/v1/jobs", smallSweep("0.3s", "20"));
    QCOMPARE(job.status, 201);
    const std::string id = std::to_string(job.body["id"].get<int>());
    QCOMPARE(e.call("POST", "/v1/jobs", smallSweep()).status, 409);
    QVERIFY(e.jobs->wait(std::stoi(id), 30'000));
    QCOMPARE(e.call("GET", "/v1/jobs").status, 200);
    QCOMPARE(e.call("GET", "/v1/jobs/" + id, {}, "GET /v1/jobs/ID").status, 200);
    QCOMPARE(e.call("GET", "/v1/jobs/99", {}, "GET /v1/jobs/ID").status, 404);
    QCOMPARE(e.call("POST", "/v1/jobs/" + id + "/cancel", {}, "POST /v1/jobs/ID/cancel").status,
             409);
    // A tune and a reproduction are accepted as well, and cancelled.
    for (const json &body :
         {json{{"kind", "tune"},
               {"profile", "default"},
               {"set", {"load.rate_pps=0", "probe.rate_hz=0", "poll.mode=sleep"}},
               {"minimize", "engine_cpu_ms_per_s"},
               {"over", "poll.sleep_min_us=10..1000"},
               {"budget", 4},
               {"duration", "1s"}},
          json{{"kind", "reproduce"}, {"case", "stmmac"}, {"repeat", 1}, {"duration", "1s"}}}) {
        const ApiReply r = e.call("POST", "/v1/jobs", body);
        QVERIFY2(r.status == 201, r.body.dump().c_str());
        const std::string n = std::to_string(r.body["id"].get<int>());
        QCOMPARE(e.call("POST", "/v1/jobs/" + n + "/cancel", {}, "POST /v1/jobs/ID/cancel").status,
                 200);
        QCOMPARE(e.jobs->job(std::stoi(n))->state, std::string("cancelled"));
    }
    // A reproduction's result: each case as it completes, with the command's table for
    // people beside the typed rows.
    const ApiReply reproduce = e.call(
        "POST", "/v1/jobs",
        json{{"kind", "reproduce"}, {"case", "stmmac"}, {"repeat", 1}, {"duration", "0.3s"}});
    QCOMPARE(reproduce.status, 201);
    const int rid = reproduce.body["id"].get<int>();
    QVERIFY(e.jobs->wait(rid, 30'000));
    const JobInfo reproduced = *e.jobs->job(rid);
    QCOMPARE(reproduced.state, std::string("completed"));
    QCOMPARE(reproduced.result["cases"].size(), std::size_t{1});
    const json &caseResult = reproduced.result["cases"][0];
    QVERIFY(!caseResult["rows"].empty());
    QVERIFY2(caseResult["report"].get<std::string>().starts_with("### Case: stmmac"),
             caseResult.dump().c_str());
    QVERIFY(reproduced.result["header"].get<std::string>().starts_with("Measured by "));
    QCOMPARE(e.call("GET", "/v1/jobs", {}, {}, {{"limit", "many"}}).status, 400);
    // The stream's job lines: typed, never text to parse.
    std::vector<Watcher::Line> lines;
    int jobLines = 0;
    bool sawProgress = false, sawSweepSoFar = false, sawCaseSoFar = false;
    while (watcher->take(lines, 200) && !lines.empty()) {
        for (const auto &l : lines) {
            const json j = json::parse(*l);
            if (j["type"] != "job") continue;
            ++jobLines;
            sawProgress |= j["progress"]["runs"].get<int>() > 0;
            // The result grows while the job runs: the sweep after its run, a case when done.
            const bool running = j["state"] == "running";
            sawSweepSoFar |= running && j["result"].contains("sweep");
            sawCaseSoFar |= running && j["result"].contains("cases");
            e.replies.push_back({{"key", "stream job"}, {"status", 200}, {"body", j}});
        }
        lines.clear();
    }
    QVERIFY(jobLines >= 3);
    QVERIFY(sawProgress);
    QVERIFY(sawSweepSoFar);
    QVERIFY(sawCaseSoFar);
    const QString problems = checkSchema(e.replies, "api-schema-jobs");
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
}

// `ringlab-engine serve` has its jobs: over HTTP, a job refuses a run start (409 naming it),
// Prometheus shows it, the stream carries its lines, and its sessions are the engine's.
void TstJobs::servedEngineRunsJobsOverHttp()
{
    QTemporaryDir dir;
    const QString tokenFile = writeTokenFile(dir.path(), "0123456789abcdef0123456789abcdef");
    QVERIFY(!tokenFile.isEmpty());
    Serve serve;
    QString why;
    QVERIFY2(serve.start({"--listen", "tcp:127.0.0.1:0", "--token-file", tokenFile, "--db",
                          dir.filePath("served.db")},
                         &why),
             qPrintable(why));
    httplib::Client c("127.0.0.1", serve.port);
    c.set_bearer_token_auth("0123456789abcdef0123456789abcdef");
    c.set_read_timeout(30, 0);
    // A watcher of the stream, on a thread of its own, keeps the job lines it sees.
    std::atomic<bool> stop{false};
    std::mutex linesMutex;
    std::vector<json> jobLines;
    httplib::Client w("127.0.0.1", serve.port);
    w.set_bearer_token_auth("0123456789abcdef0123456789abcdef");
    std::thread watcher([&] {
        std::string buffer;
        w.Get("/v1/run/stream", [&](const char *data, std::size_t n) {
            buffer.append(data, n);
            for (std::size_t nl; (nl = buffer.find('\n')) != std::string::npos;) {
                const json j = json::parse(buffer.substr(0, nl), nullptr, false);
                buffer.erase(0, nl + 1);
                if (!j.is_discarded() && j.value("type", "") == "job") {
                    std::lock_guard lock(linesMutex);
                    jobLines.push_back(j);
                }
            }
            return !stop.load();
        });
    });
    const auto job = c.Post("/v1/jobs", smallSweep("0.5s").dump(), "application/json");
    QVERIFY(job);
    QCOMPARE(job->status, 201);
    const int id = json::parse(job->body)["id"].get<int>();
    const auto start = c.Post("/v1/run/start", R"({"profile":"default"})", "application/json");
    QVERIFY(start);
    QCOMPARE(start->status, 409);
    QVERIFY2(QString::fromStdString(start->body)
                 .contains("held by job " + QString::number(id) + " (sweep) since"),
             start->body.c_str());
    const auto metrics = c.Get("/metrics");
    QVERIFY(metrics);
    QVERIFY2(metrics->body.find("ringlab_job_active{kind=\"sweep\"} 1") != std::string::npos,
             metrics->body.c_str());
    json done;
    QTRY_VERIFY_WITH_TIMEOUT(
        (done = json::parse(c.Get(("/v1/jobs/" + std::to_string(id)).c_str())->body))["state"] !=
            "running",
        30'000);
    QCOMPARE(done["state"].get<std::string>(), std::string("completed"));
    QCOMPARE(done["sessions"].size(), std::size_t{2});
    const json sessions = json::parse(c.Get("/v1/sessions")->body);
    QCOMPARE(sessions.size(), std::size_t{2});
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            std::lock_guard lock(linesMutex);
            return !jobLines.empty() && jobLines.back()["state"] == "completed";
        }(),
        10'000);
    stop = true;
    serve.p.terminate();
    watcher.join();
    std::lock_guard lock(linesMutex);
    QVERIFY(jobLines.size() >= 4); // the start, a run's progress, its session, the end
    QCOMPARE(jobLines.front()["id"].get<int>(), id);
}

// Submitted and ended in a loop, the queue keeps the most recent ended jobs only (here 3 of
// 5; the engine keeps kKeptEndedJobs): its memory does not grow with them.
void TstJobs::theHistoryIsBounded()
{
    QTemporaryDir dir;
    Served e(dir, 3);
    int last = 0;
    for (int k = 0; k < 5; ++k) {
        const ApiReply r = e.call("POST", "/v1/jobs", smallSweep("0.2s", "20"));
        QCOMPARE(r.status, 201);
        last = r.body["id"].get<int>();
        QVERIFY(e.jobs->wait(last, 30'000));
    }
    const auto jobs = e.jobs->jobs();
    QCOMPARE(jobs.size(), std::size_t{3});
    QCOMPARE(jobs.front().id, last - 2);
    QCOMPARE(jobs.back().id, last);
    QCOMPARE(jobs.back().state, std::string("completed"));
    QCOMPARE(e.call("GET", "/v1/jobs/1").status, 404); // forgotten; its sessions are kept
    QCOMPARE(e.call("GET", "/v1/jobs/" + std::to_string(last)).status, 200);
    QCOMPARE(e.call("GET", "/v1/sessions").body.size(), std::size_t{5});

    // The list is paged, newest first, and the database keeps as many as memory here (3).
    ApiRequest r;
    r.method = "GET";
    r.path = "/v1/jobs";
    r.query = {{"limit", "2"}};
    ApiReply page = e.api->handle(r);
    QCOMPARE(page.status, 200);
    QCOMPARE(page.body["jobs"].size(), std::size_t{2});
    QCOMPARE(page.body["jobs"][0]["id"].get<int>(), last);
    QCOMPARE(page.body["jobs"][1]["id"].get<int>(), last - 1);
    QCOMPARE(page.body["next_before"].get<int>(), last - 1);
    r.query = {{"limit", "2"}, {"before", std::to_string(last - 1)}};
    page = e.api->handle(r);
    QCOMPARE(page.body["jobs"].size(), std::size_t{1});
    QCOMPARE(page.body["jobs"][0]["id"].get<int>(), last - 2);
    QVERIFY(page.body["next_before"].is_null());
    for (const auto &[key, value] : std::vector<std::pair<std::string, std::string>>{
             {"limit", "0"}, {"limit", "1001"}, {"before", "x"}, {"page", "2"}}) {
        r.query = {{key, value}};
        page = e.api->handle(r);
        QCOMPARE(page.status, 400);
        QVERIFY2(page.body["error"].get<std::string>().find(key) != std::string::npos,
                 page.body.dump().c_str());
    }
}

// A sweep or tune job runs where a run of its profile would (kni-lab-100-200: the lab), or
// on the device its body names; the grant is checked against that device (tst_api_security).
void TstJobs::aJobRunsOnItsProfilesDeviceUnlessItNamesOne()
{
    JobSpec spec;
    const json sweep = {
        {"kind", "sweep"}, {"profile", "kni-lab-100-200"}, {"vary", "poll.sleep_min_us=10,20"}};
    QVERIFY(jobSpecFromJson(sweep, registryDevices(), spec).ok());
    QCOMPARE(spec.sweep.spec.device, std::string("lab"));
    json onSim = sweep;
    onSim["device"] = "sim";
    QVERIFY(jobSpecFromJson(onSim, registryDevices(), spec).ok());
    QCOMPARE(spec.sweep.spec.device, std::string("sim"));
    const json tune = {{"kind", "tune"},
                       {"profile", "kni-lab-100-200"},
                       {"minimize", "engine_cpu_ms_per_s"},
                       {"over", "poll.sleep_min_us=10..100"}};
    JobSpec tuned;
    const Status st = jobSpecFromJson(tune, registryDevices(), tuned);
    QVERIFY2(st.ok(), st.error.c_str());
    QCOMPARE(tuned.tune.device, std::string("lab"));
    json bad = sweep;
    bad["device"] = "dpdk:net_pcap0,rx_pcap=x"; // a file's option: the server's --eal only
    const Status refused = jobSpecFromJson(bad, registryDevices(), spec);
    QVERIFY2(!refused.ok() && refused.error.find("rx_pcap") != std::string::npos,
             refused.error.c_str());
}

// The history's age bound holds whether or not a job ends meanwhile (an engine opening the
// database forgets what aged past it), and a row that is not a job (written by hand) is left
// out of a page without cutting the pages short.
void TstJobs::theHistoryForgetsOldJobsAndSkipsBrokenRows()
{
    QTemporaryDir dir;
    const std::string db = dir.filePath("h.db").toStdString();
    std::int64_t old = 0, broken = 0, recent = 0;
    {
        JobStore store(db, {10, 90});
        for (std::int64_t *id : {&old, &broken, &recent}) {
            json job = {{"kind", "sweep"}, {"state", "running"}, {"started_at", isoTimeNow()}};
            *id = store.add(job);
            job["state"] = "completed";
            job["ended_at"] = isoTimeNow();
            store.save(job);
        }
    }
    {
        // One ended long ago (no engine has ended a job since), one not a job.
        SessionStore raw(db);
        raw.db()
            .prepare("UPDATE jobs SET ended_at = '2020-01-01T00:00:00.000Z' WHERE id = ?1")
            .bind(1, old)
            .run();
        raw.db().prepare("UPDATE jobs SET job = 'not json' WHERE id = ?1").bind(1, broken).run();
    }
    JobStore store(db, {10, 90});
    QVERIFY(!store.get(old));
    QVERIFY(!store.get(broken));
    QCOMPARE(store.get(recent).value()["id"].get<std::int64_t>(), recent);
    const JobPage first = store.page(0, 1);
    QCOMPARE(first.jobs.size(), std::size_t{1});
    QCOMPARE(first.lastId, recent);
    const JobPage second = store.page(first.lastId, 1);
    QCOMPARE(second.jobs.size(), std::size_t{0}); // the broken row, left out
    QCOMPARE(second.lastId, broken);              // and the cursor goes past it
    QCOMPARE(store.page(second.lastId, 1).lastId, std::int64_t{0});
}

// Job ids come from the database: an engine started again on it never gives an id twice (a
// client's /v1/jobs/1 names one job), and the job that a kill -9 of its engine cut is shown
// interrupted, saying why, with the sessions it had recorded, instead of running forever.
void TstJobs::jobIdsOutliveTheEngineAndAJobItsDeathCutIsInterrupted()
{
    QTemporaryDir dir;
    const QString tokenFile = writeTokenFile(dir.path(), "0123456789abcdef0123456789abcdef");
    QVERIFY(!tokenFile.isEmpty());
    const QStringList args{"--listen", "tcp:127.0.0.1:0",        "--token-file", tokenFile,
                           "--db",     dir.filePath("served.db")};
    auto client = [](int port) {
        auto c = std::make_unique<httplib::Client>("127.0.0.1", port);
        c->set_bearer_token_auth("0123456789abcdef0123456789abcdef");
        c->set_read_timeout(30, 0);
        return c;
    };
    int killed = 0;
    {
        Serve first;
        QString why;
        QVERIFY2(first.start(args, &why), qPrintable(why));
        auto c = client(first.port);
        const auto done = c->Post("/v1/jobs", smallSweep("0.2s", "20").dump(), "application/json");
        QVERIFY(done && done->status == 201);
        QCOMPARE(json::parse(done->body)["id"].get<int>(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(json::parse(c->Get("/v1/jobs/1")->body)["state"] != "running",
                                 30'000);
        const auto cut =
            c->Post("/v1/jobs", smallSweep("30s", "20,200").dump(), "application/json");
        QVERIFY(cut && cut->status == 201);
        killed = json::parse(cut->body)["id"].get<int>();
        QCOMPARE(killed, 2);
        // Killed once its first run is recorded.
        QTRY_VERIFY_WITH_TIMEOUT(json::parse(c->Get("/v1/jobs/2")->body)["sessions"].size() == 1,
                                 30'000);
        first.p.kill();
        QVERIFY(first.p.waitForFinished(10'000));
    }
    Serve second;
    QString why;
    QVERIFY2(second.start(args, &why), qPrintable(why));
    auto c = client(second.port);
    const json cut = json::parse(c->Get("/v1/jobs/2")->body);
    QCOMPARE(cut["state"].get<std::string>(), std::string("interrupted"));
    QVERIFY2(cut["error"].get<std::string>().find("ended while it ran") != std::string::npos,
             cut.dump().c_str());
    QCOMPARE(cut["sessions"].size(), std::size_t{1});
    QCOMPARE(json::parse(c->Get("/v1/jobs/1")->body)["state"].get<std::string>(),
             std::string("completed"));
    const auto again = c->Post("/v1/jobs", smallSweep("0.2s", "20").dump(), "application/json");
    QVERIFY(again && again->status == 201);
    QCOMPARE(json::parse(again->body)["id"].get<int>(), 3);
    const auto cancel = c->Post("/v1/jobs/2/cancel", "{}", "application/json");
    QVERIFY(cancel);
    QCOMPARE(cancel->status, 409);
    const json list = json::parse(c->Get("/v1/jobs")->body);
    QCOMPARE(list["jobs"].size(), std::size_t{3});
    QCOMPARE(list["jobs"][0]["id"].get<int>(), 3);
    QCOMPARE(list["jobs"][1]["state"].get<std::string>(), std::string("interrupted"));
}

// reproduce napi as a job: its runs on the kernel lab (a served engine needs the kernel
// grant: tst_api_security), every case at both rates, the rows and the command's table in
// the result, the reply as the schema says.
void TstJobs::aNapiReproductionIsAJobOnTheKernelLab()
{
    JobSpec spec;
    QVERIFY(
        jobSpecFromJson({{"kind", "reproduce"}, {"case", "napi"}}, registryDevices(), spec).ok());
    QCOMPARE(spec.reproduce.device, std::string("kernel-lab"));
    RINGLAB_REQUIRE(geteuid() == 0, "the kernel lab needs root");
    QTemporaryDir dir;
    Served e(dir);
    const ApiReply job =
        e.call("POST", "/v1/jobs",
               {{"kind", "reproduce"}, {"case", "napi"}, {"repeat", 1}, {"duration", "1s"}},
               "POST /v1/jobs");
    QCOMPARE(job.status, 201);
    const int id = job.body["id"].get<int>();
    QTRY_VERIFY_WITH_TIMEOUT(e.jobs->job(id)->ended(), 120'000);
    const ApiReply done = e.call("GET", "/v1/jobs/" + std::to_string(id), {}, "GET /v1/jobs/ID");
    QCOMPARE(done.body["state"].get<std::string>(), std::string("completed"));
    const json &result = done.body["result"];
    QCOMPARE(result["napi"].size(), std::size_t{8}); // 4 cases x 2 rates
    QCOMPARE(done.body["sessions"].size(), std::size_t{8});
    for (const json &row : result["napi"]) {
        QCOMPARE(row["sessions"].size(), std::size_t{1});
        QVERIFY2(row["rtt_p99_us"]["mean"].get<double>() > 0, row.dump().c_str());
        QCOMPARE(row["p99_vs_base_pct"].is_null(), row["case"] == "base");
    }
    QVERIFY2(result["report"].get<std::string>().find("### Case: napi") != std::string::npos,
             result["report"].dump().c_str());
    const QString bad = checkSchema(e.replies, "api-schema-jobs", true);
    QVERIFY2(bad.isEmpty(), qPrintable(bad));
}

QTEST_GUILESS_MAIN(TstJobs)
#include "tst_jobs.moc"
