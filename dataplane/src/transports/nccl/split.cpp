#include "transports/nccl/split.hpp"

#include <cctype>
#include <map>

#include "sys/errors.hpp"

namespace spiral::nccl {

namespace {

struct Spelling {
  const char* word;
  SplitRule::Op op;
};
constexpr Spelling kSpellings[] = {{"AND", SplitRule::Op::bit_and}, {"&", SplitRule::Op::bit_and},
                                   {"OR", SplitRule::Op::bit_or},   {"|", SplitRule::Op::bit_or},
                                   {"MOD", SplitRule::Op::mod},     {"%", SplitRule::Op::mod},
                                   {"DIV", SplitRule::Op::div},     {"/", SplitRule::Op::div}};

bool starts_with_nocase(const std::string& s, const std::string& prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  return true;
}

}  // namespace

SplitRule parse_split(const std::string& text) {
  if (text.empty()) return {};
  for (const auto& s : kSpellings) {
    if (!starts_with_nocase(text, s.word)) continue;
    std::string rest = text.substr(std::string(s.word).size());
    while (!rest.empty() && rest.front() == ' ') rest.erase(0, 1);
    int base = 10;
    if (rest.size() > 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X')) base = 16;
    if (rest.size() > 2 && rest[0] == '0' && (rest[1] == 'b' || rest[1] == 'B')) base = 2;
    const std::string digits = base == 10 ? rest : rest.substr(2);
    size_t used = 0;
    long v = -1;
    try {
      v = std::stol(digits, &used, base);
    } catch (const std::exception&) {
      used = 0;
    }
    if (digits.empty() || used != digits.size() || v < 0) break;
    if ((s.op == SplitRule::Op::mod || s.op == SplitRule::Op::div) && v == 0)
      throw BadInput("split \"" + text + "\": MOD and DIV need a value above 0");
    return {s.op, v};
  }
  throw BadInput("split \"" + text + "\": want AND, OR, MOD or DIV (or & | % /) and a value, as \"MOD 8\" or \"AND 0x7\"");
}

std::string to_string(const SplitRule& r) {
  switch (r.op) {
    case SplitRule::Op::bit_and: return "AND " + std::to_string(r.value);
    case SplitRule::Op::bit_or: return "OR " + std::to_string(r.value);
    case SplitRule::Op::mod: return "MOD " + std::to_string(r.value);
    case SplitRule::Op::div: return "DIV " + std::to_string(r.value);
    case SplitRule::Op::none: break;
  }
  return "";
}

int split_colour(const SplitRule& r, int rank) {
  const long p = rank;
  switch (r.op) {
    case SplitRule::Op::bit_and: return static_cast<int>(p & r.value);
    case SplitRule::Op::bit_or: return static_cast<int>(p | r.value);
    case SplitRule::Op::mod: return static_cast<int>(p % r.value);
    case SplitRule::Op::div: return static_cast<int>(p / r.value);
    case SplitRule::Op::none: break;
  }
  return 0;
}

std::vector<SplitPlace> split_places(const SplitRule& r, int nranks) {
  std::vector<SplitPlace> out(static_cast<size_t>(nranks));
  std::map<int, int> size_of;
  for (int i = 0; i < nranks; ++i) {
    out[i].colour = split_colour(r, i);
    out[i].rank = size_of[out[i].colour]++;
  }
  for (auto& p : out) p.nranks = size_of[p.colour];
  return out;
}

std::string split_refusal(const SplitRule& r, int nranks, int root) {
  if (!r.active()) return "";
  const auto places = split_places(r, nranks);
  for (const auto& p : places)
    if (p.nranks != places[0].nranks) {
      std::string why = "\"";  // appended piece by piece: GCC 12 misreads a + chain here (-Wrestrict)
      why.append(to_string(r)).append("\" splits ").append(std::to_string(nranks));
      why.append(" ranks into groups of different sizes (").append(std::to_string(places[0].nranks));
      why.append(" and ").append(std::to_string(p.nranks)).append("): every group must time the same operation");
      return why;
    }
  if (root >= places[0].nranks)
    return "root " + std::to_string(root) + " is not a rank of groups of " + std::to_string(places[0].nranks);
  return "";
}

}  // namespace spiral::nccl
