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
#include "engine/run/api_fields.h"
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

std::string randomKey()
{
    std::random_device rd;
    std::ostringstream out;
    for (int k = 0; k < 4; ++k)
        out << std::hex << std::setw(8) << std::setfill('0') << rd();
    return out.str();
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
    out.record = options.record;
    if (body.contains("interval_ms")) {
        const json &v = body["interval_ms"];
        if (!v.is_number_integer() || v.get<std::int64_t>() < 10 || v.get<std::int64_t>() > 10'000)
            return ApiReply::error(
                400, "interval_ms " + (v.is_number() ? v.dump() : std::string(v.type_name())) +
                         ": the sample interval is an integer of 10..10000 ms");
        out.intervalMs = v.get<std::int64_t>();
    }
    const Status fields =
        options.inProcess
            ? onlyFields(body,
                         {"profile", "set", "device", "name", "client", "interval_ms", "record",
                          "eal", "traffic"},
                         "start")
            : onlyFields(body,
                         {"profile", "set", "device", "name", "client", "interval_ms", "record"},
                         "start");
    for (const Status &st :
         {fields, stringField(body, "profile", out.profileName),
          stringField(body, "device", out.device), stringField(body, "name", out.name),
          stringField(body, "client", out.client), stringField(body, "eal", out.eal),
          stringField(body, "traffic", out.traffic), boolField(body, "record", out.record),
          assignmentsField(body, out.overrides)})
        if (!st.ok()) return ApiReply::error(400, st.error);
    if (out.record && !options.record)
        return ApiReply::error(400, "start: \"record\": true, but this engine records nothing "
                                    "(it was started with --no-record)");
    return std::nullopt;
}

// A client in another process names a profile and gives a device spec, never a path; a 400
// reply when it gives one.
std::optional<ApiReply> refuseClientPaths(const StartRequest &r, const RunApiOptions &options)
{
    if (!options.inProcess)
        if (const Status st = clientProfileName(r.profileName); !st.ok())
            return ApiReply::error(400, st.error);
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
    // Every endpoint (docs/api.md): its path (a prefix when it ends in '/'), its method (GET
    // answers HEAD too; none: the endpoint checks, after its path: the jobs API, a session),
    // given the request and, for a POST, its body read as a JSON object.
    using Answer = ApiReply (*)(RunApi &, const ApiRequest &, const json &);
    struct Route {
        std::string_view path, method;
        Answer answer;
    };
    static const Route kRoutes[] = {
        {"/v1/version", "GET",
         [](RunApi &a, const ApiRequest &, const json &) { return a.version(); }},
        {"/v1/devices", "GET",
         [](RunApi &a, const ApiRequest &, const json &) { return a.devices(); }},
        {"/v1/profiles", "GET",
         [](RunApi &, const ApiRequest &, const json &) {
             return ApiReply{200, profilesJson(), {}, {}};
         }},
        {"/v1/tunables", "GET",
         [](RunApi &a, const ApiRequest &q, const json &) { return a.tunables(q); }},
        {"/v1/run", "GET",
         [](RunApi &a, const ApiRequest &, const json &) { return a.runState(); }},
        {"/v1/sessions", "GET",
         [](RunApi &a, const ApiRequest &, const json &) { return a.sessions(); }},
        {"/v1/sessions/", "",
         [](RunApi &a, const ApiRequest &q, const json &) { return a.sessionPath(q); }},
        {"/v1/compare", "GET",
         [](RunApi &a, const ApiRequest &q, const json &) { return a.compare(q); }},
        {"/v1/jobs", "", [](RunApi &a, const ApiRequest &q, const json &) { return a.jobs(q); }},
        {"/v1/jobs/", "", [](RunApi &a, const ApiRequest &q, const json &) { return a.jobs(q); }},
        {"/v1/run/start", "POST",
         [](RunApi &a, const ApiRequest &, const json &b) { return a.start(b); }},
        {"/v1/run/set", "POST",
         [](RunApi &a, const ApiRequest &q, const json &b) { return a.set(q, b); }},
        {"/v1/run/mark", "POST",
         [](RunApi &a, const ApiRequest &q, const json &b) { return a.mark(q, b); }},
        {"/v1/run/stop", "POST",
         [](RunApi &a, const ApiRequest &q, const json &b) { return a.stop(q, b); }},
        {"/v1/run/control", "POST",
         [](RunApi &a, const ApiRequest &, const json &b) { return a.takeControl(b); }},
    };
    const std::string &p = r.path;
    const Route *route = nullptr;
    for (const Route &candidate : kRoutes)
        if (candidate.path.back() == '/' ? p.starts_with(candidate.path) : p == candidate.path) {
            route = &candidate; // the first that matches: no path matches two today
            break;
        }
    if (!route) return ApiReply::error(404, "no such endpoint: " + p + " (see docs/api.md)");
    const std::string_view method = r.method == "HEAD" ? std::string_view("GET") : r.method;
    if (!route->method.empty() && method != route->method)
        return ApiReply::error(405, r.method + " " + p + ": use " + std::string(route->method));
    json body;
    if (route->method == "POST")
        if (const Status st = parseObject(r.body, body); !st.ok())
            return ApiReply::error(400, st.error);
    return route->answer(*this, r, body);
}

ApiReply RunApi::jobs(const ApiRequest &r)
{
    if (jobs_) return jobs_->handle(r);
    return ApiReply::error(404, "no such endpoint: " + r.path + " (this engine runs no jobs)");
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
    std::string source = "api";
    Assignments a;
    for (const Status &st : {onlyFields(body, {"set", "source"}, "set"), assignmentsField(body, a),
                             stringField(body, "source", source)})
        if (!st.ok()) return ApiReply::error(400, st.error);
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
    std::string label;
    for (const Status &st :
         {onlyFields(body, {"label"}, "mark"), stringField(body, "label", label)})
        if (!st.ok()) return ApiReply::error(400, st.error);
    if (label.empty()) return ApiReply::error(400, "mark: field \"label\" is empty");
    if (label.size() > 200)
        return ApiReply::error(400, "mark: the label is " + std::to_string(label.size()) +
                                        " bytes long (at most 200)");
    std::lock_guard lock(mutex_);
    if (auto refused = refuseWithoutControl(r, "mark")) return *refused;
    service_.mark(label);
    return {200, {{"label", label}}, {}, {}};
}

ApiReply RunApi::stop(const ApiRequest &r, const json &body)
{
    if (const Status st = onlyFields(body, {}, "stop"); !st.ok())
        return ApiReply::error(400, st.error);
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
    std::string client = "unnamed client";
    for (const Status &st :
         {onlyFields(body, {"client"}, "control"), stringField(body, "client", client)})
        if (!st.ok()) return ApiReply::error(400, st.error);
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

} // namespace ringlab
