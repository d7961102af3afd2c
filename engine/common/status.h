// SPDX-License-Identifier: GPL-2.0-or-later
// The core's one error convention.
//
// A function that can fail for a reason from outside (a profile, a value, a file, a
// database, a request) returns a Status. The type is [[nodiscard]], so the compiler
// refuses a caller that drops it (-Werror). On failure, error is one sentence that names
// the thing, the value and what is allowed; a caller adds context in front, never
// rewords it. Its outcome says which kind of failure it is (refused, failed, interrupted).
// A value comes back as a Result<T> (the value, or the Status saying why not), or through
// out-parameters set only on success.
//
// Exceptions stay inside two places, where a resource either is had or is not:
//  - the datapath's parts throw from their constructors when memory, a timer or a thread
//    cannot be had (a part holds its resource or does not exist), and a device's factory
//    when the device cannot be had; Engine::create(), Engine::start() and a live restart
//    turn that into a Status, so nothing above the engine sees them;
//  - the store's SQLite failures (DbError, store/sqlite_db.h), which any statement may
//    raise (a full disk, a lock held too long, a damaged file): a session's reads and
//    writes are sequences of statements, and they are caught where a sequence ends, at a
//    program's edge (a command, RunService, the recorder, a dialog) and reported there.
// None reaches Qt's event loop or a datapath thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace ringlab {

// How a request or a piece of work ended: one kind for every command, job and reply. A
// program's edge maps it to what its caller reads, each in one place: exit codes
// (app/cli_options.h: exitCode), HTTP statuses (engine/run/api_fields.cpp: httpStatus), job
// states (engine/experiments/job_queue.cpp: jobState).
enum class Outcome : std::uint8_t {
    Done,        // as asked
    Refused,     // the request as given cannot be done (a value, a name, a device the user
                 // must change); nothing was changed or recorded
    Failed,      // the engine, a device or the store failed under a valid request
    Interrupted, // a signal, a cancel or a shutdown stopped it before it was done
};
std::string_view outcomeName(Outcome o);

struct [[nodiscard]] Status {
    std::string error;
    Outcome fault = Outcome::Refused; // which failure, when error is set
    bool ok() const { return error.empty(); }
    Outcome outcome() const { return ok() ? Outcome::Done : fault; }
    static Status success() { return {}; }
    // A request that cannot be done as given: the common failure of input from outside.
    static Status failure(std::string why) { return refused(std::move(why)); }
    // A reason is never empty: an empty one would read as success.
    static Status refused(std::string why) { return {reason(std::move(why)), Outcome::Refused}; }
    static Status failed(std::string why) { return {reason(std::move(why)), Outcome::Failed}; }
    static Status interrupted(std::string why)
    {
        return {reason(std::move(why)), Outcome::Interrupted};
    }
    // The same outcome, with context in front ("device X: " + the reason).
    Status within(const std::string &context) const { return {context + error, fault}; }

  private:
    static std::string reason(std::string why) { return why.empty() ? "no reason given" : why; }
};

// A value, or why there is none.
template <class T> class [[nodiscard]] Result {
  public:
    Result(T value) : value_(std::move(value)) {}
    // A Status that is ok holds no value: it is a failure without a reason.
    Result(Status why)
        : status_(why.ok() ? Status::failed("no value and no reason given") : std::move(why))
    {
    }
    bool ok() const { return value_.has_value(); }
    const Status &status() const { return status_; }
    const std::string &error() const { return status_.error; }
    const T &value() const & { return *value_; }
    T &value() & { return *value_; }
    T &&value() && { return std::move(*value_); }

  private:
    std::optional<T> value_;
    Status status_;
};

inline std::string_view outcomeName(Outcome o)
{
    static constexpr std::string_view names[] = {"completed", "refused", "failed", "interrupted"};
    return names[static_cast<std::size_t>(o)];
}

} // namespace ringlab
