// Private to src/lua: Sandbox::Library, the functions a team's state gets in place of (or around)
// Lua's own, declared here and defined by library in base_library.cpp, string_library.cpp,
// table_library.cpp and ordered_next.cpp. Static members: they reach into the Sandbox and the
// running Bot.
#pragma once

#include <cstddef>

#include <lua.hpp>

#include "core/clock.h"
#include "lua/sandbox.h"

namespace arbiter::lua {

// Calls the wrapped library function (upvalue 1) with this call's arguments.
int call_original(lua_State* L);

struct Sandbox::Library {
  static const SandboxOptions& options(lua_State* L) { return Sandbox::of(L).options_; }

  // --- The base functions (base_library.cpp) ---
  static int host_trampoline(lua_State* L);
  static int yield(lua_State* L);
  static int cas(lua_State* L);
  static int setmetatable(lua_State* L);
  static int load(lua_State* L);
  static int random(lua_State* L);
  static int xpcall(lua_State* L);
  static int results(lua_State* L, int, lua_KContext);
  static int guarded_handler(lua_State* L);
  // Replaces field `name` of the table on top of the stack by `fn` wrapping the original.
  static void wrap(lua_State* L, const char* module, const char* name, lua_CFunction fn);
  static void remove_field(lua_State* L, const char* name);

  // --- Charging the work of C functions (base_library.cpp; docs/security.md, "Lua: what each
  // library function may cost") ---
  //
  // Work done inside one C call is not counted by the hook. Functions whose work grows with
  // their input charge it to the running bot: one instruction per kBytesPerInstruction bytes
  // and per kValuesPerInstruction values touched (rounded down, so short calls cost nothing
  // more than their call instruction).
  static constexpr std::size_t kBytesPerInstruction = 32;
  static constexpr std::size_t kValuesPerInstruction = 8;

  static void charge_work(lua_State* L, long long n);
  static void charge_bytes(lua_State* L, std::size_t bytes);
  static void charge_values(lua_State* L, std::size_t values);
  static void check_watchdog(lua_State* L);
  static std::size_t string_bytes(lua_State* L, int from, int to);
  static int call_charged(lua_State* L, std::size_t bytes, std::size_t values);
  static int charged_results(lua_State* L);
  static int charged_arguments(lua_State* L);

  // --- string (string_library.cpp) ---
  static void check_pattern(lua_State* L, bool can_anchor);
  static std::size_t start_position(lua_Integer pos, std::size_t len);
  static int find(lua_State* L);
  static int match(lua_State* L);
  static int gmatch(lua_State* L);
  static int gsub(lua_State* L);
  static int rep(lua_State* L);
  static void check_pack_format(lua_State* L, const char* fn, bool fields);
  static int pack(lua_State* L);
  static int unpack(lua_State* L);
  static int packsize(lua_State* L);
  static void push_display_string(lua_State* L, int idx);
  static int tostring(lua_State* L);
  static int format(lua_State* L);

  // --- table (table_library.cpp) ---
  static lua_Integer raw_length(lua_State* L, const char* fn);
  static void check_span(lua_State* L, lua_Integer span, const char* fn);
  static int insert(lua_State* L);
  static int remove(lua_State* L);
  static int move(lua_State* L);
  static int concat(lua_State* L);
  // table.sort: Lua's own algorithm with a deterministic pivot.
  using SortIndex = unsigned int;
  static constexpr SortIndex kRandomPivotLimit = 100;  // RANLIMIT
  static int sort_less(lua_State* L, int a, int b);
  static void sort_set2(lua_State* L, SortIndex i, SortIndex j);
  static SortIndex sort_partition(lua_State* L, SortIndex lo, SortIndex up);
  static unsigned int sort_salt(lua_State* L, SortIndex lo, SortIndex up);
  static void sort_range(lua_State* L, SortIndex lo, SortIndex up, unsigned int rnd);
  static int sort(lua_State* L);

  // --- next and pairs (ordered_next.cpp) ---
  // Where bounded work paid for in instructions began, on the wall clock and the CPU clock.
  struct WorkMark {
    Instant wall;
    Duration cpu{};
  };
  static WorkMark work_start(lua_State* L);
  static void excuse_work(lua_State* L, WorkMark since);
  [[noreturn]] static void unordered_key_error(lua_State* L, int idx);
  static void build_snapshot(lua_State* L, int lower, int cache);
  static lua_Integer snapshot_int(lua_State* L, int snap, lua_Integer slot);
  static int first_key(lua_State* L, int cache);
  static int next(lua_State* L);
  static int pairs_continuation(lua_State*, int, lua_KContext);
  static int pairs(lua_State* L);
};

}  // namespace arbiter::lua
