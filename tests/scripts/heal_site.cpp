#include "heal_site.h"

#include <fmt/format.h>

#include <map>
#include <stdexcept>
#include <vector>

namespace ouro::testing {

namespace {

struct Variant {
  bool renamed = true;      // ids and classes renamed
  bool reordered = false;   // each decoy before its target, the rows in another order
  bool wrapped = false;     // every row inside two more elements
  bool reworded = false;    // the targets' labels say it otherwise
  bool moved = false;       // the form in an aside instead of main
  bool decoy_id = false;    // the target's old id is the decoy's now
  bool gone = false;        // the Subscribe button is a "Join the list" one, nothing like it
};

Variant variant_of(const std::string& name) {
  static const std::map<std::string, Variant> kVariants = {
      {"orig", {.renamed = false}},
      {"renamed", {}},
      {"reordered", {.reordered = true}},
      {"wrapped", {.wrapped = true}},
      {"reworded", {.reworded = true}},
      {"moved", {.moved = true}},
      {"decoy-id", {.renamed = false, .decoy_id = true}},
      {"gone", {.gone = true}},
  };
  auto it = kVariants.find(name);
  if (it == kVariants.end()) throw std::invalid_argument("no variant " + name);
  return it->second;
}

}  // namespace

std::string heal_page(const std::string& name) {
  Variant v = variant_of(name);
  auto id = [&](const std::string& base) { return v.renamed ? "n-" + base + "-7f" : base; };
  std::string inp = v.renamed ? "field-x" : "inp", btn = v.renamed ? "cta-x" : "btn";
  std::string sub_id = v.decoy_id ? "subscribe-main" : id("subscribe"), psub_id = v.decoy_id ? "subscribe" : id("subscribe-partners");
  std::string email = fmt::format("<label for='{0}'>{1}</label> <input id='{0}' class='{2}' name='email' type='email' data-k='email'>", id("email"),
                                  v.reworded ? "Your email address" : "Email address", inp);
  std::string pemail = fmt::format("<label for='{0}'>Email address for partners</label> <input id='{0}' class='{1}' name='partner_email' type='email' "
                                   "data-k='DECOY:email'>", id("pemail"), inp);
  std::string terms = fmt::format("<label><input type='checkbox' id='{}' name='terms' data-k='terms'> {}</label>", id("terms"),
                                  v.reworded ? "I agree to the terms" : "I accept the terms");
  std::string mterms = fmt::format("<label><input type='checkbox' id='{}' name='marketing' data-k='DECOY:terms'> I accept the marketing terms</label>",
                                   id("mterms"));
  std::string plan = fmt::format("<label for='{0}'>{1}</label> <select id='{0}' name='plan' data-k='plan'><option>Free</option><option>Pro</option></select>",
                                 id("plan"), v.reworded ? "Your plan" : "Plan");
  std::string pplan = fmt::format("<label for='{0}'>Partner plan</label> <select id='{0}' name='partner_plan' data-k='DECOY:plan'><option>Free</option>"
                                  "<option>Pro</option></select>", id("pplan"));
  std::string sub = fmt::format("<button id='{}' class='{} primary' type='button' data-k='subscribe'>{}</button>", sub_id, btn,
                                v.gone ? "Join the list" : v.reworded ? "Subscribe now" : "Subscribe");
  std::string psub = fmt::format("<button id='{}' class='{}' type='button' data-k='DECOY:subscribe'>Subscribe to partner offers</button>", psub_id, btn);
  auto row = [&](const std::string& inner) {
    return v.wrapped ? "<div class='row'><div class='wrap-a'><span class='wrap-b'>" + inner + "</span></div></div>\n" : "<div class='row'>" + inner + "</div>\n";
  };
  std::vector<std::pair<std::string, std::string>> pairs = {{email, pemail}, {terms, mterms}, {plan, pplan}};
  if (v.reordered) std::swap(pairs[0], pairs[2]);
  std::string rows;
  for (const auto& [target, decoy] : pairs) rows += v.reordered ? row(decoy) + row(target) : row(target) + row(decoy);
  std::string buttons = v.reordered ? row(psub) + row(sub) : row(sub) + row(psub);
  // Moved: the form leaves its named section in main for the page's sidebar.
  std::string section = v.moved ? "<div class='box'>" : "<section aria-label='Sign up'>";
  std::string form = section + "<h2>Newsletter sign-up</h2><form class='" + std::string(v.renamed ? "f-9" : "news-form") +
                     "' onsubmit='return false'>\n" + rows + buttons + "</form>" + (v.moved ? "</div>" : "</section>") + "\n";
  std::string main = "<h1>Our newsletter</h1><p>News about the fixture, once a month.</p>\n";
  std::string body = v.moved ? "<main>" + main + "</main><aside aria-label='Sidebar'>" + form + "</aside>" : "<main>" + main + form + "</main>";
  return "<!doctype html><html><head><meta charset='utf-8'><title>Newsletter</title></head><body>\n"
         "<header><nav aria-label='Main'><a href='#home'>Home</a> <a href='#blog'>Blog</a></nav></header>\n" +
         body +
         "\n<footer>Fixture footer</footer>\n<pre id='log'></pre>\n"
         "<script>\n"
         "const log = t => { document.getElementById('log').textContent += t + '\\n'; };\n"
         "const key = el => el && el.dataset ? el.dataset.k || '' : '';\n"
         "for (const type of ['input', 'change', 'click', 'focusin'])\n"
         "  document.addEventListener(type, e => { const k = key(e.target.closest ? e.target.closest('[data-k]') : null);\n"
         "    if (k.startsWith('DECOY') && !(type === 'click' && e.target.tagName === 'SELECT')) log(k + ' (' + type + ')'); }, true);\n"
         "document.addEventListener('click', e => {\n"
         "  if (key(e.target.closest && e.target.closest('button')) !== 'subscribe') return;\n"
         "  const f = k => document.querySelector(`[data-k='${k}']`);\n"
         "  log(`subscribed email=${f('email').value} terms=${f('terms').checked} plan=${f('plan').value}`);\n"
         "});\n"
         "</script></body></html>";
}

HealSite::HealSite() {
  m_io = net::IoThread::start();
  auto server = net::HttpServer::start(*m_io, {}, [](const net::HttpRequest& r) {
    net::HttpResponse res;
    const std::string prefix = "/v/";
    try {
      if (r.path.rfind(prefix, 0) != 0) throw std::invalid_argument("not a variant");
      res.body = heal_page(r.path.substr(prefix.size()));
    } catch (const std::exception&) {
      res.status = 404;
      res.body = "no such page";
    }
    return res;
  });
  if (!server) throw std::runtime_error("heal site: " + server.error().message);
  m_server = std::move(*server);
}

std::string HealSite::url(const std::string& variant) const { return fmt::format("http://127.0.0.1:{}/v/{}", m_server->port(), variant); }

}  // namespace ouro::testing
