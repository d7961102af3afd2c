// SPDX-License-Identifier: GPL-2.0-or-later
// /v1/jobs of the engine's API (docs/api.md, "Jobs"): JobQueue's requests and replies.
#include <limits>

#include "engine/experiments/job_queue.h"
#include "engine/profile/strict_json.h"
#include "engine/run/api_fields.h"

namespace ringlab {
namespace {

using nlohmann::json;

// The device a job's runs open, checked against the grants as a run's is: the body's
// "device", else its profile's (jobSpecFromJson resolved it); a reproduction's cases are on
// the simulated NIC, napi's on the kernel lab.
std::string jobDevice(const JobSpec &spec)
{
    const std::string &d = spec.kind == "sweep"  ? spec.sweep.spec.device
                           : spec.kind == "tune" ? spec.tune.device
                                                 : spec.reproduce.device;
    return d.empty() ? std::string("sim") : d;
}

// A job's id, or a page's limit or cursor: a positive integer that fits an int.
bool jobId(const std::string &text, int &out)
{
    std::int64_t v = 0;
    if (!positiveId(text, v) || v > std::numeric_limits<int>::max()) return false;
    out = static_cast<int>(v);
    return true;
}

} // namespace

ApiReply JobQueue::handle(const ApiRequest &r)
{
    const std::string &p = r.path;
    const bool get = r.method == "GET" || r.method == "HEAD";
    const bool post = r.method == "POST";
    const auto wrongMethod = [&](const char *allowed) {
        return ApiReply::error(405, r.method + " " + p + ": use " + allowed);
    };
    if (p == "/v1/jobs") {
        if (get) {
            // Newest first, a page at a time: ?limit=N (1..1000, 100) and ?before=ID.
            int before = 0, limit = static_cast<int>(kJobsPage);
            for (const auto &[key, value] : r.query) {
                int *into = key == "before" ? &before : key == "limit" ? &limit : nullptr;
                if (!into)
                    return ApiReply::error(400, "jobs: unknown parameter \"" + key +
                                                    "\" (allowed: limit, before)");
                if (!jobId(value, *into) ||
                    (into == &limit && *into > static_cast<int>(kJobsPageMax)))
                    return ApiReply::error(400, "jobs: " + key + " \"" + value.substr(0, 40) +
                                                    "\" is not " +
                                                    (into == &limit ? "1 to 1000" : "a job id"));
            }
            JobPage page = jobPage(before, static_cast<std::size_t>(limit));
            json arr = json::array();
            for (auto &j : page.jobs)
                arr.push_back(std::move(j));
            // The next page's cursor, until the last page.
            return {
                200,
                {{"jobs", arr}, {"next_before", page.lastId ? json(page.lastId) : json(nullptr)}},
                {},
                {}};
        }
        if (!post) return wrongMethod("GET or POST");
        json body;
        std::string why;
        if (!parseStrictJson(r.body.empty() ? std::string("{}") : r.body, body, why))
            return ApiReply::error(400, "jobs: the body is not JSON: " + why);
        if (!body.is_object()) {
            // As it came: a number too large for a double (1e999) reads back as null.
            std::string text = r.body.substr(0, 40) + (r.body.size() > 40 ? "..." : "");
            return ApiReply::error(400, std::string("jobs: the body must be a JSON object, not ") +
                                            body.type_name() + " (" + text + ")");
        }
        JobSpec spec;
        if (auto st = jobSpecFromJson(body, devices_, spec); !st.ok())
            return ApiReply::error(400, "jobs: " + st.error);
        if (options_.refuseDevice)
            if (auto refused = options_.refuseDevice(jobDevice(spec), "jobs")) return *refused;
        const auto id = submit(spec);
        if (!id.ok()) return ApiReply::error(409, "jobs: " + id.error());
        return {201, jobJson(*job(id.value())), {}, {}};
    }
    // /v1/jobs/ID or /v1/jobs/ID/cancel
    std::string id;
    bool cancelling = false;
    if (!idPath(p, "/v1/jobs/", "/cancel", id, cancelling))
        return ApiReply::error(404, "no such endpoint: " + p + " (see docs/api.md)");
    int n = 0;
    if (!jobId(id, n))
        return ApiReply::error(400, "job \"" + id + "\" is not a job id (a positive integer)");
    if (cancelling && !post) return wrongMethod("POST");
    if (!cancelling && !get) return wrongMethod("GET");
    if (cancelling) {
        if (!job(n)) {
            if (const auto old = jobView(n)) {
                const auto state = old->find("state");
                const std::string s =
                    state != old->end() && state->is_string() ? state->get<std::string>() : "?";
                return ApiReply::error(409,
                                       "cancel: job " + id +
                                           (s == "running" ? " is run by another engine on this "
                                                             "database: cancel it there"
                                                           : " has ended (" + s + ")"));
            }
            return ApiReply::error(404, "no job " + id);
        }
        if (const Status st = cancel(n); !st.ok())
            return ApiReply::error(409, "cancel: " + st.error);
    }
    const auto view = jobView(n);
    if (!view)
        return ApiReply::error(404, "no job " + id + " (the history keeps the last " +
                                        std::to_string(options_.history.endedJobs) +
                                        " ended jobs, " + std::to_string(options_.history.days) +
                                        " days)");
    return {200, *view, {}, {}};
}

} // namespace ringlab
