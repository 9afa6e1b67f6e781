#include "referee/lockstep.h"

#include "core/protocol.h"

namespace arbiter {

std::optional<Ejection> OutsideSeat::win(bool won) {
  auto heard = call<Unit>("win", wire::kWin, Json::array({won}),
                          [](const Json& reply) -> Expected<Unit> {
                            if (reply != wire::kVoid)
                              return fail("win reply must be \"void\", got " + excerpt(reply));
                            return Unit{};
                          });
  if (heard) return std::nullopt;
  return heard.error();
}

std::expected<Json, Ejection> LiveSeat::exchange(const char* call, std::string_view method,
                                                 const Json& args, Duration& elapsed) {
  if (!unstarted_.empty()) return std::unexpected(Ejection{seat_, Why::hang_up, call, unstarted_});
  const Deadline deadline = Deadline::after(clock_, per_call_);
  // Not measured: an outside team's CPU time is its program's, which this seat cannot see.
  auto outcome = guarded_call(
      seat_, call, runner_, deadline,
      [ask = ask_, request = wire::call(method, args)] { return ask(request); }, std::nullopt,
      CpuRule{.measure = false});
  elapsed = outcome.elapsed;
  if (!outcome.value) return std::unexpected(outcome.value.error());
  return std::move(*outcome.value);
}

std::expected<Json, Ejection> ScriptedSeat::exchange(const char* call, std::string_view,
                                                     const Json& args, Duration&) {
  try {
    Json record = script_->next(seat_, call, args);
    return field_or_null(record, "reply");
  } catch (const PlayerFault& fault) {
    return std::unexpected(Ejection{seat_, fault.why(), call, fault.what()});
  }
}

}  // namespace arbiter
