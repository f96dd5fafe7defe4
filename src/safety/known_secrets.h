// Secrets of every run, recognised later without being kept: for each secret value a run was
// given (--secret, the settings file, an askUser answer), salted SHA-256 digests of its forms —
// the value with compatibility forms and case folded (spellings.h's Exact lane), and its skeleton
// (its ASCII letters and digits, when 8 or more) — with their lengths and the secret's name, in
// <data dir>/secret-digests (mode 0600, the salt a random 32 bytes made with the file). What a
// later run reads back from the store or memory is masked wherever a substring's digest is known,
// also inside encoded runs (spellings::find_decoding), so a value that one run could not store
// because it was its secret is not handed back by a run that stored it without knowing.
//
// Matching is a rolling pass per known length (a keyed polynomial hash prefilters; the digest is
// computed only where that agrees): linear in the text times the number of distinct lengths.
#pragma once

#include "base/error.h"
#include "base/json.h"
#include "safety/spellings.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

namespace ouro::safety {

class KnownSecrets {
 public:
  // Reads the digest file at `path`, creating it (0600, with a new salt) if it does not exist.
  // Fails — so that a caller refuses to hand back unchecked records — when the file cannot be
  // read or created, is malformed, or can be read by others than its owner.
  static Result<std::shared_ptr<KnownSecrets>> open(const std::string& path);

  // Records the digests of a secret's value (values under kMinScrubbedBytes are not looked for
  // and not recorded), appending to the file what it did not hold. Any thread.
  Result<void> record(const std::string& name, std::string_view value);

  // Every substring of text whose digest is known becomes "[SECRET:name]". Any thread.
  std::string scrub_text(std::string text, spellings::Work* work = nullptr) const;
  // The same for every string and object key of v.
  void scrub(json& v) const;
  size_t size() const;  // digests held

 private:
  struct Entry {
    char lane;  // 'e' Exact, 's' Skeleton
    uint32_t length;
    uint32_t prefilter;  // the low 32 bits of the keyed polynomial hash
    std::string digest;  // SHA-256(salt, lane, form), hex
    std::string name;
  };
  KnownSecrets() = default;
  Result<void> load(const std::string& text);
  std::string digest(char lane, std::string_view form) const;
  uint32_t prefilter(std::string_view form) const;
  void add_locked(Entry e);
  std::vector<spellings::Span> find_locked(std::string_view text) const;

  std::string m_path;
  std::string m_salt;  // 32 random bytes
  uint64_t m_base = 0; // the polynomial hash's base, from the salt
  mutable std::shared_mutex m_mutex;
  std::map<std::string, size_t> m_by_digest;  // digest → index into m_names
  std::vector<std::string> m_names;
  std::unordered_set<uint64_t> m_prefilters;            // lane, length, prefilter packed
  std::array<std::vector<uint32_t>, 2> m_lengths;  // distinct lengths per lane (Exact, Skeleton)
  size_t m_entries = 0;
};

}  // namespace ouro::safety
