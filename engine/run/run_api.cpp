// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/run_api.h"

#include <algorithm>
#include <charconv>
#include <iomanip>
#include <random>
#include <sstream>

#include "engine/common/host_info.h"
#include "engine/git_revision.h"
#include "engine/metrics/sample_metrics.h"
#include "engine/profile/strict_json.h"
#include "engine/run/catalog_json.h"
#include "engine/store/environment_json.h"
#include "engine/store/session_compare.h"
#include "engine/store/session_report.h"
#include "engine/version.h"

namespace ringlab {

using nlohmann::json;

ApiReply ApiReply::error(int status, const std::string &message)
{
    return ApiReply{status, json{{"error", message}}, {}, {}};
}

namespace {

// The HTTP status of an engine's refusal or failure (docs/api.md): a request it understood
// but cannot do as given is 422, one it failed under is 500, one stopped by a shutdown 503.
// (Malformed requests are 400 and missing things 404 where they are read.)
int httpStatus(const Status &st)
{
    switch (st.outcome()) {
    case Outcome::Done:
        return 200;
    case Outcome::Refused:
        return 422;
    case Outcome::Interrupted:
        return 503;
    case Outcome::Failed:
        break;
    }
    return 500;
}

// Text from clients and the system may not be UTF-8: replaced, never thrown on.
std::string safeDump(const json &j)
{
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string randomKey()
{
    std::random_device rd;
    std::ostringstream out;
    for (int k = 0; k < 4; ++k)
        out << std::hex << std::setw(8) << std::setfill('0') << rd();
    return out.str();
}

// The body as a JSON object (an empty body is an empty object); `error` names what is wrong.
bool parseObject(const std::string &body, json &out, std::string &error)
{
    if (body.find_first_not_of(" \t\r\n") == std::string::npos) {
        out = json::object();
        return true;
    }
    if (std::string why; !parseStrictJson(body, out, why)) {
        error = "the request body is not JSON: " + why;
        return false;
    }
    if (!out.is_object()) {
        error = "the request body must be a JSON object, not " + std::string(out.type_name());
        return false;
    }
    return true;
}

// Refuses fields a command does not know (a typo must not pass for a default).
bool onlyFields(const json &body, std::initializer_list<const char *> allowed, const char *command,
                std::string &error)
{
    for (const auto &[key, v] : body.items()) {
        bool ok = false;
        std::string list;
        for (const char *a : allowed) {
            ok = ok || key == a;
            list += (list.empty() ? "" : ", ") + std::string(a);
        }
        if (!ok) {
            error = std::string(command) + ": unknown field \"" + key +
                    "\" (allowed: " + (list.empty() ? "none" : list) + ")";
            return false;
        }
    }
    return true;
}

bool boolField(const json &body, const char *name, bool &out, std::string &error)
{
    if (!body.contains(name)) return true;
    if (!body[name].is_boolean()) {
        error = std::string("field \"") + name + "\" must be true or false, not " +
                body[name].type_name();
        return false;
    }
    out = body[name].get<bool>();
    return true;
}

bool stringField(const json &body, const char *name, std::string &out, std::string &error)
{
    if (!body.contains(name)) return true;
    if (!body[name].is_string()) {
        error =
            std::string("field \"") + name + "\" must be a string, not " + body[name].type_name();
        return false;
    }
    out = body[name].get<std::string>();
    return true;
}

// Who made a change, as recorded with its event: a short word (gui, script, api).
bool changeSource(const std::string &s)
{
    if (s.empty() || s.size() > 16) return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

// {"NAME": VALUE, ...} with string or number values, as assignments in the given order.
bool assignmentsField(const json &body, Assignments &out, std::string &error)
{
    out.clear();
    if (!body.contains("set")) return true;
    const json &set = body["set"];
    if (!set.is_object()) {
        error = std::string("field \"set\" must be an object of tunable names and values, e.g. "
                            "{\"poll.mode\": \"busy\"}, not ") +
                set.type_name();
        return false;
    }
    for (const auto &[name, v] : set.items()) {
        if (v.is_string())
            out.emplace_back(name, v.get<std::string>());
        else if (v.is_number_integer() || v.is_number_unsigned() || v.is_number_float())
            out.emplace_back(name, v.dump());
        else {
            error = "set \"" + name + "\": a value is a string or a number, not " + v.type_name();
            return false;
        }
    }
    return true;
}

bool positiveId(const std::string &text, std::int64_t &id)
{
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    return ec == std::errc() && ptr == text.data() + text.size() && id > 0;
}

json sessionJson(const SessionInfo &s)
{
    return {{"id", s.id},
            {"uuid", s.uuid},
            {"name", s.name},
            {"status", s.status},
            {"created_at", s.createdAt},
            {"ended_at", s.endedAt},
            {"device", s.device},
            {"profile", s.profile},
            {"host", s.host.hostname},
            {"engine_version", s.engineVersion},
            {"interval_s", s.intervalS},
            {"run_group", s.runGroup},
            {"repeat_index", s.repeatIndex},
            {"duration_s", s.durationS},
            {"samples", s.sampleCount},
            {"mean_rx_pps", s.meanRxPps}};
}

json estimateJson(const Estimate &e)
{
    return {{"n", e.n},
            {"mean", e.mean},
            {"median", e.median},
            {"ci_half", e.ciHalf},
            {"batches", e.batches}};
}

std::string queryValue(const ApiRequest &r, const std::string &key, const std::string &fallback)
{
    const auto it = r.query.find(key);
    return it == r.query.end() ? fallback : it->second;
}

// What a start asks for, as its fields give it.
struct StartRequest {
    std::string profileName = "default", device, name, client = "unnamed client";
    std::string eal, traffic;
    bool record = true;
    Assignments overrides;
    std::int64_t intervalMs = kSampleIntervalNs / 1'000'000;
};

// A start's fields (a client in another process may give fewer); a 400 reply when one is not
// as it should be.
std::optional<ApiReply> readStartRequest(const json &body, const RunApiOptions &options,
                                         StartRequest &out)
{
    std::string error;
    out.record = options.record;
    if (body.contains("interval_ms")) {
        const json &v = body["interval_ms"];
        if (!v.is_number_integer() || v.get<std::int64_t>() < 10 || v.get<std::int64_t>() > 10'000)
            return ApiReply::error(
                400, "interval_ms " + (v.is_number() ? v.dump() : std::string(v.type_name())) +
                         ": the sample interval is an integer of 10..10000 ms");
        out.intervalMs = v.get<std::int64_t>();
    }
    const bool ok =
        options.inProcess
            ? onlyFields(body,
                         {"profile", "set", "device", "name", "client", "interval_ms", "record",
                          "eal", "traffic"},
                         "start", error)
            : onlyFields(body,
                         {"profile", "set", "device", "name", "client", "interval_ms", "record"},
                         "start", error);
    if (!ok || !stringField(body, "profile", out.profileName, error) ||
        !stringField(body, "device", out.device, error) ||
        !stringField(body, "name", out.name, error) ||
        !stringField(body, "client", out.client, error) ||
        !stringField(body, "eal", out.eal, error) ||
        !stringField(body, "traffic", out.traffic, error) ||
        !boolField(body, "record", out.record, error) ||
        !assignmentsField(body, out.overrides, error))
        return ApiReply::error(400, error);
    if (out.record && !options.record)
        return ApiReply::error(400, "start: \"record\": true, but this engine records nothing "
                                    "(it was started with --no-record)");
    return std::nullopt;
}

// A client in another process names a profile and gives a device spec, never a path; a 400
// reply when it gives one.
std::optional<ApiReply> refuseClientPaths(const StartRequest &r, const RunApiOptions &options)
{
    const std::string &profileName = r.profileName;
    const bool jsonFile =
        profileName.size() >= 5 && profileName.compare(profileName.size() - 5, 5, ".json") == 0;
    if (!options.inProcess && (profileName.empty() || profileName.find('/') != std::string::npos ||
                               profileName.find("..") != std::string::npos || jsonFile))
        return ApiReply::error(400, "profile \"" + profileName +
                                        "\": give a profile's name (GET /v1/profiles lists "
                                        "them); paths are not taken over the API");
    if (!r.device.empty() && !options.inProcess)
        if (auto st = clientDeviceSpec(r.device); !st.ok()) return ApiReply::error(400, st.error);
    return std::nullopt;
}

// The run a start asks for: the resolved profile on the request's device (the profile's
// when it names none), named after the profile and its overrides when the request names it
// not.
RunSetup startSetup(const StartRequest &r, const ResolvedProfile &resolved,
                    const RunApiOptions &options, const DeviceProvider &devices)
{
    RunSetup setup;
    setup.params = resolved.params;
    setup.profile = resolved.profile.name;
    setup.device.spec = r.device.empty() ? resolved.profile.device : r.device;
    if (devices.usesEal(setup.device.spec))
        setup.device.eal = options.inProcess && !r.eal.empty() ? splitEalArgs(r.eal) : options.eal;
    setup.device.traffic = r.traffic;
    setup.intervalNs = r.intervalMs * 1'000'000;
    setup.sessionName = r.name;
    if (setup.sessionName.empty()) {
        setup.sessionName = resolved.profile.name;
        for (const auto &[k, v] : r.overrides)
            setup.sessionName += " " + k + "=" + v;
    }
    return setup;
}

} // namespace

// A device spec from a client: ports by name, with only the options that name things
// (an interface, a MAC), never ones that take files (a pcap's rx_pcap, a path).
Status clientDeviceSpec(const std::string &spec)
{
    const std::string what = "device \"" + spec + "\": ";
    if (spec.empty() || spec.size() > 200 ||
        spec.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                               "_.:+,=-") != std::string::npos)
        return Status{what + "give a device's spec as GET /v1/devices lists it (letters, digits "
                             "and _ . : + , = -)"};
    // Ports are joined by '+'; a port's options follow its name after commas, KEY=VALUE.
    std::size_t start = 0;
    while (start <= spec.size()) {
        const std::size_t end = std::min(spec.find_first_of("+", start), spec.size());
        const std::string port = spec.substr(start, end - start);
        for (std::size_t comma = port.find(','); comma != std::string::npos;
             comma = port.find(',', comma + 1)) {
            const std::string option =
                port.substr(comma + 1, port.find(',', comma + 1) - comma - 1);
            const std::string key = option.substr(0, option.find('='));
            if (key != "iface" && key != "mac")
                return Status{what + "option \"" + key +
                              "\" is not taken over the API (allowed: iface, mac); give other "
                              "options to the server's --eal"};
        }
        start = end + 1;
    }
    return {};
}

RunApi::RunApi(RunApiOptions options, const DeviceProvider &devices)
    : options_(std::move(options)), provider_(devices),
      store_(std::make_unique<SessionStore>(options_.db.empty() ? SessionStore::defaultPath()
                                                                : options_.db)),
      service_(devices, [hub = hub_](const std::string &msg) {
          hub->publish(safeDump(json{{"type", "warning"}, {"message", "recording: " + msg}}));
      })
{
}

RunApi::~RunApi()
{
    shutdown();
    jobs_.reset();
}

void RunApi::shutdown(const std::string &status)
{
    if (jobs_) jobs_->shutdown(); // its runs end interrupted, kept
    {
        std::lock_guard lock(mutex_);
        shutDown_ = true;
        if (service_.running()) service_.stop(status);
        runActive_ = false;
        releaseHold();
    }
    hub_->close();
}

void RunApi::releaseHold()
{
    if (holdToken_ && !service_.running()) {
        lock_->release(holdToken_);
        holdToken_ = 0;
    }
}

void RunApi::publish(const std::string &line)
{
    hub_->publish(line);
}

std::unique_ptr<SessionStore> RunApi::reader() const
{
    // An engine that records nothing keeps no file (serve --no-record): no sessions to read.
    if (store_->file() == ":memory:") return std::make_unique<SessionStore>(":memory:");
    return std::make_unique<SessionStore>(store_->file(), Db::Mode::ReadOnly);
}

ApiReply RunApi::handle(const ApiRequest &r)
{
    try {
        return route(r);
    } catch (const std::exception &e) {
        return ApiReply::error(500, std::string("the engine failed: ") + e.what());
    }
}

ApiReply RunApi::route(const ApiRequest &r)
{
    const std::string &p = r.path;
    const bool get = r.method == "GET" || r.method == "HEAD";
    const bool post = r.method == "POST";
    const auto wrongMethod = [&](const char *allowed) {
        return ApiReply::error(405, r.method + " " + p + ": use " + allowed);
    };
    if (p == "/v1/version") return get ? version() : wrongMethod("GET");
    if (p == "/v1/devices") return get ? devices() : wrongMethod("GET");
    if (p == "/v1/profiles")
        return get ? ApiReply{200, profilesJson(), {}, {}} : wrongMethod("GET");
    if (p == "/v1/tunables") return get ? tunables(r) : wrongMethod("GET");
    if (p == "/v1/run") return get ? runState() : wrongMethod("GET");
    if (p == "/v1/sessions") return get ? sessions() : wrongMethod("GET");
    if (p == "/v1/compare") return get ? compare(r) : wrongMethod("GET");
    if (p == "/v1/jobs" || p.rfind("/v1/jobs/", 0) == 0) {
        if (jobs_) return jobs_->handle(r);
        return ApiReply::error(404, "no such endpoint: " + p + " (this engine runs no jobs)");
    }
    if (const std::string prefix = "/v1/sessions/"; p.rfind(prefix, 0) == 0) {
        // /v1/sessions/ID or /v1/sessions/ID/export
        std::string id = p.substr(prefix.size());
        const std::string exportTail = "/export";
        const bool exporting =
            id.size() > exportTail.size() &&
            id.compare(id.size() - exportTail.size(), exportTail.size(), exportTail) == 0;
        if (exporting) id.resize(id.size() - exportTail.size());
        if (id.empty() || id.find('/') != std::string::npos)
            return ApiReply::error(404, "no such endpoint: " + p + " (see docs/api.md)");
        if (!get) return wrongMethod("GET");
        std::int64_t n = 0;
        if (!positiveId(id, n))
            return ApiReply::error(400, "session \"" + id +
                                            "\" is not a session id (a positive integer)");
        return exporting ? exportSession(n, r) : session(n);
    }
    const bool command = p == "/v1/run/start" || p == "/v1/run/set" || p == "/v1/run/mark" ||
                         p == "/v1/run/stop" || p == "/v1/run/control";
    if (!command) return ApiReply::error(404, "no such endpoint: " + p + " (see docs/api.md)");
    if (!post) return wrongMethod("POST");
    json body;
    std::string error;
    if (!parseObject(r.body, body, error)) return ApiReply::error(400, error);
    if (p == "/v1/run/start") return start(body);
    if (p == "/v1/run/set") return set(r, body);
    if (p == "/v1/run/mark") return mark(r, body);
    if (p == "/v1/run/stop") {
        if (!onlyFields(body, {}, "stop", error)) return ApiReply::error(400, error);
        return stop(r);
    }
    return takeControl(body);
}

void RunApi::setEndpoint(const std::string &endpoint)
{
    std::lock_guard lock(mutex_);
    options_.endpoint = endpoint;
}

ApiReply RunApi::devices()
{
    // Listing probes DPDK's virtual ports (and starts the EAL with the server's arguments):
    // once, and never under a run.
    std::lock_guard lock(devicesMutex_);
    if (devices_.is_null()) {
        if (running()) return ApiReply::error(409, "devices: listed once no run is going");
        devices_ = devicesJson(provider_.list(options_.eal));
    }
    return {200, devices_, {}, {}};
}

bool RunApi::running() const
{
    std::lock_guard lock(mutex_);
    return service_.running();
}

ApiReply RunApi::version() const
{
    std::lock_guard lock(mutex_);
    return {200,
            {{"api", kApiVersion},
             {"engine", "ringlab-engine"},
             {"version", RINGLAB_VERSION},
             {"revision", RINGLAB_GIT_REVISION},
             {"host", currentHost().hostname},
             {"endpoint", options_.endpoint},
             {"database", store_->file().string()},
             {"recording", options_.record}},
            {},
            {}};
}

ApiReply RunApi::tunables(const ApiRequest &r)
{
    (void)r;
    std::lock_guard lock(mutex_);
    if (service_.running())
        return {200, tunablesJson(service_.params(), service_.deviceSupport()), {}, {}};
    return {200, tunablesJson(ParamSet{}), {}, {}};
}

json RunApi::stateLocked() const
{
    json j = {{"type", "state"}, {"running", service_.running()}, {"last_session", lastSession_}};
    if (service_.running()) {
        j["session"] = service_.sessionId();
        j["profile"] = profile_;
        j["device"] = service_.deviceInfo().name;
        j["started_at"] = startedAt_;
        j["controller"] = controller_;
        j["params"] = valuesJson(service_.params());
    }
    return j;
}

ApiReply RunApi::runState()
{
    std::lock_guard lock(mutex_);
    json j = stateLocked();
    j.erase("type");
    j["watchers"] = hub_->watchers();
    // What holds the measurement when it is not this API's run: a job (GET /v1/jobs/ID).
    if (const auto h = lock_->holder(); h && h->kind != "run")
        j["held_by"] = {{"kind", h->kind}, {"what", h->what}, {"since", h->since}};
    return {200, j, {}, {}};
}

std::shared_ptr<Watcher> RunApi::watch()
{
    // The state first, so a watcher knows what it joined; the hub's lines follow it.
    std::lock_guard lock(mutex_);
    return hub_->watch(safeDump(stateLocked()));
}

std::int64_t RunApi::lastPollPassNs() const
{
    std::lock_guard lock(mutex_);
    return service_.running() ? service_.engine().lastPollPassNs() : 0;
}

std::string RunApi::metricsText() const
{
    std::shared_ptr<PrometheusExporter> exporter;
    {
        std::lock_guard lock(exporterMutex_);
        exporter = exporter_;
    }
    // The engine's build and whether a run is going come first, with or without a run; the
    // current (or last) run's series follow.
    return promEngineInfo(runActive_) + (jobs_ ? jobs_->metricsText() : std::string()) +
           (exporter ? exporter->text() : std::string());
}

std::optional<ApiReply> RunApi::refuseWithoutControl(const ApiRequest &r, const char *what) const
{
    if (!service_.running()) return ApiReply::error(409, std::string(what) + ": no run is going");
    if (r.control == controlKey_) return std::nullopt;
    return ApiReply::error(
        409, std::string(what) + ": the run is controlled by \"" + controller_ + "\" (since " +
                 controlSince_ + "); " +
                 (r.control.empty() ? "this request has no X-Ringlab-Control key"
                                    : "this request's X-Ringlab-Control key is not the run's") +
                 ", so it can watch but not change the run (POST /v1/run/control takes over)");
}

std::optional<ApiReply> RunApi::refuseWithoutGrant(const std::string &spec,
                                                   const std::string &what) const
{
    std::string why;
    const std::string grant = provider_.grant(spec, &why);
    if (options_.inProcess || grant.empty() ||
        std::find(options_.grants.begin(), options_.grants.end(), grant) != options_.grants.end())
        return std::nullopt;
    return ApiReply::error(403, what + ": device \"" + spec + "\" needs the grant \"" + grant +
                                    "\" (" + why +
                                    "); this engine was not given it (ringlab-engine serve "
                                    "--allow " +
                                    grant + ")");
}

ApiReply RunApi::start(const json &body)
{
    StartRequest request;
    if (auto refused = readStartRequest(body, options_, request)) return *refused;
    if (auto refused = refuseClientPaths(request, options_)) return *refused;
    ResolvedProfile resolved;
    if (auto st =
            resolveProfile(request.profileName, request.overrides, resolved, request.device,
                           [this](const std::string &spec) { return provider_.defaults(spec); });
        !st.ok())
        return ApiReply::error(422, st.error);

    std::lock_guard lock(mutex_);
    if (shutDown_) return ApiReply::error(503, "start: the engine is shutting down");
    if (service_.running())
        return ApiReply::error(409, "start: a run is going (session " +
                                        std::to_string(service_.sessionId()) +
                                        ", controlled by \"" + controller_ + "\"): stop it first");
    const RunSetup setup = startSetup(request, resolved, options_, provider_);
    if (auto refused = refuseWithoutGrant(setup.device.spec)) return *refused;
    if (auto st = provider_.check(setup.device); !st.ok()) return ApiReply::error(422, st.error);
    std::string refusal;
    holdToken_ = lock_->acquire(
        "run", "a run of profile " + resolved.profile.name + " (client \"" + request.client + "\")",
        refusal);
    if (!holdToken_) return ApiReply::error(409, "start: " + refusal);
    auto exporter = std::make_shared<PrometheusExporter>(
        PrometheusExporter::RunLabels{0, setup.device.spec, setup.profile}, setup.params);
    if (const Status st =
            service_.start(setup, request.record ? store_.get() : nullptr, {hub_, exporter});
        !st.ok()) {
        releaseHold();
        return ApiReply::error(httpStatus(st), st.error);
    }
    return startedLocked(setup, request.client, exporter);
}

ApiReply RunApi::startedLocked(const RunSetup &setup, const std::string &client,
                               const std::shared_ptr<PrometheusExporter> &exporter)
{
    exporter->setRun({service_.sessionId(), service_.deviceInfo().name, setup.profile});
    {
        std::lock_guard exporterLock(exporterMutex_);
        exporter_ = exporter;
    }
    runActive_ = true;
    profile_ = setup.profile;
    controller_ = client;
    controlKey_ = randomKey();
    controlId_ = randomKey().substr(0, 8);
    startedAt_ = isoTimeNow();
    controlSince_ = startedAt_;
    if (service_.sessionId()) lastSession_ = service_.sessionId(); // the last one recorded
    hub_->publish(safeDump(stateLocked()));
    json j = stateLocked();
    j.erase("type");
    j["control"] = controlKey_;
    j["control_id"] = controlId_;
    return {201, j, {}, {}};
}

ApiReply RunApi::set(const ApiRequest &r, const json &body)
{
    std::string error, source = "api";
    Assignments a;
    if (!onlyFields(body, {"set", "source"}, "set", error) || !assignmentsField(body, a, error) ||
        !stringField(body, "source", source, error))
        return ApiReply::error(400, error);
    if (a.empty()) return ApiReply::error(400, "set: field \"set\" names no tunable");
    if (!changeSource(source))
        return ApiReply::error(400, "set: source \"" + source +
                                        "\" is not one (1 to 16 of a-z, 0-9 and _, e.g. gui)");
    std::lock_guard lock(mutex_);
    if (auto refused = refuseWithoutControl(r, "set")) return *refused;
    if (auto st = service_.apply(a, source); !st.ok()) {
        releaseHold(); // a failed restart may have ended the run
        return ApiReply::error(422, st.error);
    }
    return {200, {{"params", valuesJson(service_.params())}}, {}, {}};
}

ApiReply RunApi::mark(const ApiRequest &r, const json &body)
{
    std::string error, label;
    if (!onlyFields(body, {"label"}, "mark", error) || !stringField(body, "label", label, error))
        return ApiReply::error(400, error);
    if (label.empty()) return ApiReply::error(400, "mark: field \"label\" is empty");
    if (label.size() > 200)
        return ApiReply::error(400, "mark: the label is " + std::to_string(label.size()) +
                                        " bytes long (at most 200)");
    std::lock_guard lock(mutex_);
    if (auto refused = refuseWithoutControl(r, "mark")) return *refused;
    service_.mark(label);
    return {200, {{"label", label}}, {}, {}};
}

ApiReply RunApi::stop(const ApiRequest &r)
{
    std::lock_guard lock(mutex_);
    if (auto refused = refuseWithoutControl(r, "stop")) return *refused;
    const RunOutcome out = service_.stop("completed");
    runActive_ = false;
    releaseHold();
    controller_.clear();
    controlKey_.clear();
    hub_->publish(safeDump(stateLocked()));
    return {200,
            {{"session", out.session},
             {"samples_written", out.samplesWritten},
             {"samples_lost", out.samplesLost},
             {"record_error", out.recordError}},
            {},
            {}};
}

ApiReply RunApi::takeControl(const json &body)
{
    std::string error, client = "unnamed client";
    if (!onlyFields(body, {"client"}, "control", error) ||
        !stringField(body, "client", client, error))
        return ApiReply::error(400, error);
    std::lock_guard lock(mutex_);
    if (!service_.running()) return ApiReply::error(409, "control: no run is going");
    const std::string before = controller_;
    controller_ = client;
    controlKey_ = randomKey();
    controlId_ = randomKey().substr(0, 8);
    controlSince_ = isoTimeNow();
    hub_->publish(safeDump(json{{"type", "control"},
                                {"controller", controller_},
                                {"previous", before},
                                {"control_id", controlId_}}));
    return {
        200, {{"control", controlKey_}, {"control_id", controlId_}, {"previous", before}}, {}, {}};
}

ApiReply RunApi::sessions()
{
    json arr = json::array();
    for (const auto &s : reader()->list())
        arr.push_back(sessionJson(s));
    return {200, arr, {}, {}};
}

ApiReply RunApi::session(std::int64_t id)
{
    auto store = reader();
    SessionInfo s;
    if (!store->get(id, s)) return ApiReply::error(404, "no session " + std::to_string(id));
    json j = sessionJson(s);
    j["environment"] = environmentJson(store->environment(id));
    json params = json::object();
    for (const auto &[k, v] : store->params(id))
        params[k] = v;
    j["params"] = params;
    json changes = json::array();
    const auto changeRows = store->changes(id);
    for (const auto &c : changeRows)
        changes.push_back({{"t", c.t},
                           {"tunable", c.tunable},
                           {"old", c.oldValue},
                           {"new", c.newValue},
                           {"source", c.source}});
    j["changes"] = changes;
    json events = json::array();
    for (const auto &e : store->events(id))
        events.push_back(
            {{"t", e.t}, {"kind", e.kind}, {"message", e.message}, {"source", e.source}});
    j["events"] = events;
    const SampleTable tab = store->samples(id);
    json segments = json::array();
    for (const auto &seg : segmentsOf(tab, changeRows, kWarmupS)) {
        json summary = json::object();
        for (const auto &metric : keyMetrics()) {
            const auto open = metric.find('[');
            const std::string name = metric.substr(0, open);
            const std::string thread =
                open == std::string::npos ? "" : metric.substr(open + 1, metric.size() - open - 2);
            if (tab.column(name, thread) >= 0)
                summary[metric] = estimateJson(estimateOf(tab, seg.rows, name, thread));
        }
        segments.push_back({{"index", seg.index},
                            {"start", seg.start},
                            {"end", seg.end},
                            {"opened", seg.opened},
                            {"samples", seg.rows.size()},
                            {"summary", summary}});
    }
    j["segments"] = segments;
    return {200, j, {}, {}};
}

ApiReply RunApi::exportSession(std::int64_t id, const ApiRequest &r)
{
    const std::string format = queryValue(r, "format", "csv");
    const ExportFormat *f = findExportFormat(format);
    if (!f) return ApiReply::error(400, "format \"" + format + "\": use " + exportFormatNames());
    auto store = reader();
    SessionInfo s;
    if (!store->get(id, s)) return ApiReply::error(404, "no session " + std::to_string(id));
    std::ostringstream out;
    if (auto st = writeExport(*store, id, format, out); !st.ok())
        return ApiReply::error(400, st.error);
    return {200, {}, out.str(), std::string(f->contentType)};
}

ApiReply RunApi::compare(const ApiRequest &r)
{
    const std::string specA = queryValue(r, "a", ""), specB = queryValue(r, "b", "");
    if (specA.empty() || specB.empty())
        return ApiReply::error(400, "compare: give a=ID[:SEGMENT] and b=ID[:SEGMENT]");
    auto store = reader();
    auto sideA = loadCompareSide(*store, specA, kWarmupS);
    auto sideB = sideA.ok() ? loadCompareSide(*store, specB, kWarmupS) : sideA;
    if (!sideB.ok()) return ApiReply::error(404, "compare: " + sideB.error());
    const CompareSide a = std::move(sideA).value(), b = std::move(sideB).value();
    if (a.label == b.label)
        return ApiReply::error(400, "compare: A and B are the same (" + a.label + ")");
    std::vector<std::string> metrics;
    for (auto [it, end] = r.query.equal_range("metric"); it != end; ++it)
        metrics.push_back(it->second);
    const bool named = !metrics.empty();
    if (!named) metrics = defaultCompareMetrics(a, b);
    std::vector<std::string> missing;
    auto rows = compareSides(a, b, metrics, missing);
    const auto caveats = environmentCaveats(*store, a, b);
    addEnvironmentCaveat(rows, caveats);
    if (named && !missing.empty())
        return ApiReply::error(404, "compare: metric \"" + missing.front() +
                                        "\" is not in both sides (the metrics are the columns "
                                        "of a CSV export, e.g. rx_pps, cpu_ms_per_s[poll])");
    orderForReading(rows);
    json out = json::array();
    for (const auto &row : rows)
        out.push_back({{"metric", row.metric},
                       {"unit", row.unit},
                       {"a", estimateJson(row.a)},
                       {"b", estimateJson(row.b)},
                       {"diff", row.diff.diff},
                       {"pct", row.diff.pct},
                       {"ci_half", row.diff.ciHalf},
                       {"significant", row.diff.significant},
                       {"better", row.better},
                       {"verdict", row.verdict}});
    json caveatsJson = json::array();
    for (const auto &c : caveats)
        caveatsJson.push_back({{"key", c.key},
                               {"rank", std::string(rankName(c.rank))},
                               {"a", c.a},
                               {"b", c.b},
                               {"text", c.text()}});
    return {200,
            {{"a", a.label},
             {"b", b.label},
             {"notes", compareNotes(a, b)},
             {"caveats", caveatsJson},
             {"rows", out},
             {"missing", missing}},
            {},
            {}};
}

} // namespace ringlab
