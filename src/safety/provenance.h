// Where a value came from (docs/design/provenance.md): the text a run read from each site's
// pages, and the user's own words (the task, its URLs, the user's answers), so that a value the
// run is about to write into a page can be traced back to the sites whose pages hold it.
//
// Content-addressed: nothing rides on the values themselves. A value written at a sink is cut
// into distinctive windows (word-anchored, normalised: case folded, white space collapsed): 8
// characters that hold 3 digits or an '@' (account numbers, e-mail addresses, codes), or 24
// characters of any text (an address, a sentence). A window found in a site's page text and not
// in the user's words names that site as a source. So labels survive what code does to strings
// (concatenation, templates, slicing, JSON.stringify, joins, a URL's percent-escapes, base64 or
// hex of it) as long as a distinctive piece of the page's text is kept; what escapes (a value retyped digit by digit, translated, summarised in
// other words) is listed in the design note.
//
// Bounded: at most 1 MiB of text per site (the newest kept) and 64 sites (the oldest site goes);
// a value is checked on its first 4,096 characters. Thread-safe.
#pragma once

#include "base/json.h"

#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace ouro::safety {

class Provenance {
 public:
  // The user's words: the task's text and its URLs.
  explicit Provenance(std::string_view user_words = {});

  // More of the user's words (an answer they gave).
  void add_user_words(std::string_view text);
  // Text a page of `site` gave the run (site_of_host of its host; "" is ignored); `page`: its URL,
  // for questions and records.
  void note(const std::string& site, std::string_view text, const std::string& page = {});
  // Every string inside a JSON value a page of `site` gave (keys too); data: URLs are skipped.
  void note_json(const std::string& site, const json& value, const std::string& page = {});

  // The sites whose page text holds a distinctive window of `value` that the user's words do not.
  std::set<std::string> sources(std::string_view value) const;
  // Sites the run has read anything from, oldest first.
  std::vector<std::string> sites_read() const;
  // The last page of a site the run read ("" when none).
  std::string page_of(const std::string& site) const;
  // Whether the user's words hold a word that starts with `stem` ("approv": approve, approval).
  bool user_wrote(std::string_view stem) const;

  // What a checkpoint keeps, so labels survive a resume: {user, sites: [{name, page, text}]},
  // within the same bounds. restore() puts it back: the saved user's words join the ones given
  // now, and the saved sites' text is the run's read so far. A value not of that shape is ignored.
  json to_json() const;
  void restore(const json& saved);

 private:
  struct Site {
    std::string name;
    std::string text;  // normalised, pieces separated by '\n'
    std::string page;
    std::unordered_set<size_t> seen;  // hashes of the pieces noted (the same page read again adds nothing)
  };
  mutable std::mutex m_mutex;
  std::string m_user;       // normalised
  std::vector<Site> m_sites;  // oldest first
};

// The sites a task names: those of its URLs (`urls`) and of the http(s) URLs and host names
// written in its text ("compare prices on shop.example and book on air.example").
std::set<std::string> named_sites(std::string_view task, const std::vector<std::string>& urls);

}  // namespace ouro::safety
