// Skill: a Bayesian rating with uncertainty for ranked outcomes of any number of seats, the
// Plackett-Luce model of Weng and Lin ("A Bayesian Approximation Method for Online Ranking",
// JMLR 12, 2011, Algorithm 4). Each rating is a normal belief N(mu, sigma^2) about a bot's skill;
// one match's finish (places, ties allowed) moves every seat's belief in closed form, in time
// O(k^2) for k seats, whatever came before. docs/ratings.md gives the formulas.
// Pure functions of their arguments.
#pragma once

#include <cstddef>
#include <vector>

namespace arbiter::league {

struct Skill {
  double mu = 25.0;
  double sigma = 25.0 / 3.0;
};

struct SkillParams {
  double mu = 25.0;           // a newcomer's mean
  double sigma = 25.0 / 3.0;  // a newcomer's uncertainty
  double beta = 25.0 / 6.0;   // the spread of one match's performance around the skill
  double kappa = 1e-4;        // the floor of the factor a match shrinks a variance by
  // Added to every seat's variance (as tau^2) before a match: skill may drift, so a belief never
  // freezes. 0 gives the paper's static model.
  double tau = 25.0 / 300.0;
  double z = 3.0;  // the conservative estimate is mu - z sigma
};

// The team form of the update: teams[i] are the members of the team that finished at
// places[i] (lower is better, equal places tie). A team's skill is the sum of its members';
// each member takes the team's update in proportion to its share of the team's variance.
// Result: the members' new skills, in the same shape. A "match" of fewer than two teams changes
// nothing. Throws std::invalid_argument for sizes that differ, an empty team, a sigma that is not
// positive and finite, or params out of range (beta, sigma, z: positive; kappa in (0, 1];
// tau >= 0).
std::vector<std::vector<Skill>> rate_teams(const std::vector<std::vector<Skill>>& teams,
                                           const std::vector<int>& places,
                                           const SkillParams& params = {});

// One bot per seat: seats[i] finished at places[i].
std::vector<Skill> rate_match(const std::vector<Skill>& seats, const std::vector<int>& places,
                              const SkillParams& params = {});

// mu - z sigma: a skill the bot is very likely (z = 3: 99.9 % under the belief) to have at
// least. Ranks a leaderboard without rewarding a lucky first game.
double conservative(const Skill& s, const SkillParams& params = {});

}  // namespace arbiter::league
