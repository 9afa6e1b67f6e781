// Where the course's reference implementation reads its harness inputs more laxly than our own
// codec, the harnesses read them the same way; the wire protocol (codec.h) stays strict.
#pragma once

#include "core/json.h"

namespace arbiter::q::harness {

// A JRow that names the same column twice keeps the later cell, as the reference does (it
// builds the map by inserting cell after cell). Returns the JMap without the earlier cells;
// anything that is not shaped like a JMap is returned as it is, for the decoder to refuse.
Json keep_later_cells(Json jmap);

// The same for the "map" of a JPub or JState.
Json keep_later_cells_of_map(Json object);

}  // namespace arbiter::q::harness
