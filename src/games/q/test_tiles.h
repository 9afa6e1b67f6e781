// Named tiles for the Q unit tests.
#pragma once

#include "games/q/tile.h"

namespace arbiter::q::test_tiles {

inline constexpr Tile kRedStar{Shape::star, Color::red};
inline constexpr Tile kRedSquare{Shape::square, Color::red};
inline constexpr Tile kRedCircle{Shape::circle, Color::red};
inline constexpr Tile kBlueStar{Shape::star, Color::blue};
inline constexpr Tile kBlueSquare{Shape::square, Color::blue};
inline constexpr Tile kBlueDiamond{Shape::diamond, Color::blue};
inline constexpr Tile kBlueEightStar{Shape::eight_star, Color::blue};
inline constexpr Tile kGreenStar{Shape::star, Color::green};
inline constexpr Tile kGreenCircle{Shape::circle, Color::green};
inline constexpr Tile kGreenClover{Shape::clover, Color::green};
inline constexpr Tile kGreenEightStar{Shape::eight_star, Color::green};
inline constexpr Tile kYellowDiamond{Shape::diamond, Color::yellow};

}  // namespace arbiter::q::test_tiles
