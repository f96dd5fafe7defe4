// Parameter types and URL redaction: the pure units behind argument checks and secret-free
// prompts.
#include "actions/registry.h"
#include "actions/schema.h"
#include "safety/redact.h"

#include <gtest/gtest.h>

namespace ouro::actions {
namespace {

std::optional<std::string> check(const std::string& type, const json& v) {
  auto s = parse_schema(type);
  EXPECT_TRUE(s) << (s ? "" : s.error().message);
  return check_value(**s, v, "x");
}

TEST(Schema, EveryRegistryDeclarationParses) {
  for (const auto& c : registry())
    for (const auto& p : c.params) EXPECT_TRUE(parse_schema(p.type)) << c.name << "." << p.name << ": " << p.type;
}

TEST(Schema, NestedFieldsAreCheckedAndNamed) {
  EXPECT_EQ(check("{ double?: boolean, timeout?: number(0..120000) }", json{{"double", 1}}), "x.double must be a boolean, got number 1");
  EXPECT_FALSE(check("{ double?: boolean }", json{{"double", true}}));
  EXPECT_FALSE(check("{ double?: boolean }", json{{"double", nullptr}})) << "undefined fields are absent";
  EXPECT_EQ(check("{ double?: boolean }", json{{"doubel", true}}), "x has no field 'doubel' (known: double)");
  EXPECT_EQ(check("{ width: number(>0) }", json::object()), "x.width is missing (x needs it: a number above 0)");
  EXPECT_EQ(check("{ width: number(>0) }", json{{"width", 0}}), "x.width must be a number above 0, got number 0");
  EXPECT_EQ(check("{ x: number }", json{{"x", "1"}}), "x.x must be a number, got string \"1\"");
  EXPECT_EQ(check("integer(0..10)", 2.5), "x must be a whole number from 0 to 10, got number 2.5");
  EXPECT_EQ(check("'up'|'down'", "sideways"), "x must be one of 'up', 'down', got string \"sideways\"");
  EXPECT_EQ(check("Array<'Shift'|'Alt'>", json::array({"Shift", "Ctrl"})), "x[1] must be one of 'Shift', 'Alt', got string \"Ctrl\"");
  EXPECT_EQ(check("Record<string, string|boolean>", json{{"#a", "v"}, {"#b", json::object()}}),
            "x.#b must be a string or a boolean, got object {}");
  EXPECT_EQ(check("string|{ name?: string }", json{{"name", 3}}), "x.name must be a string, got number 3")
      << "a union reports the nested problem of the member of the value's type";
  EXPECT_FALSE(check("Array<string|{ prompt: string, data?: any }>", json::array({"a", json{{"prompt", "b"}, {"data", {1, 2}}}})));
  EXPECT_TRUE(check("string", std::string(100000, 'a') + "x") == std::nullopt);
  EXPECT_NE(check("string", json(1.5))->size(), 0u);
}

TEST(Schema, MalformedTypesAreErrorsNotCrashes) {
  for (const char* bad : {"", "{", "{ a }", "Array<string", "'open", "number(1..", "Record<number, string>", "{ a: }", "((((("})
    EXPECT_FALSE(parse_schema(bad)) << bad;
  std::string deep(100, '(');
  EXPECT_FALSE(parse_schema(deep + "string" + std::string(100, ')')));
}

TEST(Schema, ArgumentErrorsAreTypeErrorsNamingTheFunction) {
  auto r = check_args(*find("click"), json::array({"t1", "#b", {{"double", 1}}}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "click: options.double must be a boolean, got number 1");
  EXPECT_EQ(r.error().details["name"], "TypeError");
  r = check_args(*find("screenshot"), json::array({"t1", {{"x", "1"}, {"y", 0}, {"width", 10}, {"height", 10}}}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "screenshot: rect.x must be a number ≥ 0, got string \"1\"");
  EXPECT_TRUE(check_args(*find("getCookies"), json::array({{{"name", "a"}}})));
}

TEST(Schema, JsonSchemaForToolDefinitions) {
  json j = params_json_schema(*find("click"));
  EXPECT_EQ(j["required"], json::array({"tabId", "selector"}));
  EXPECT_EQ(j["properties"]["options"]["properties"]["double"]["type"], "boolean");
  EXPECT_EQ(j["properties"]["options"]["additionalProperties"], false);
  EXPECT_EQ(params_json_schema(*find("scroll"))["properties"]["direction"]["enum"].size(), 6u);
}

TEST(Redact, SecretNamedUrlParametersAreMasked) {
  using safety::redact_url_params;
  EXPECT_EQ(redact_url_params("http://127.0.0.1:8080/?token=abc123def"), "http://127.0.0.1:8080/?token=[REDACTED]");
  EXPECT_EQ(redact_url_params("id:t1 | https://x.org/cb?code=XYZ&state=s1&page=2 | \"Title\""),
            "id:t1 | https://x.org/cb?code=[REDACTED]&state=[REDACTED]&page=2 | \"Title\"");
  EXPECT_EQ(redact_url_params("https://x.org/#access_token=eyJ.a.b&expires_in=3600"), "https://x.org/#access_token=[REDACTED]&expires_in=3600");
  EXPECT_EQ(redact_url_params("https://s3/x?X-Amz-Signature=abc&api_key=k&sessionid=1&Password=p"),
            "https://s3/x?X-Amz-Signature=[REDACTED]&api_key=[REDACTED]&sessionid=[REDACTED]&Password=[REDACTED]");
  for (const char* keep : {"https://shop/?q=shoes&keyword=red&author=smith&page=3", "a = b", "x?y"})
    EXPECT_EQ(redact_url_params(keep), keep);
  json ev = {{"prompt", "tab http://h/?auth=zzz"}, {"nested", {{"u", "http://h/p?key=1"}}}};
  safety::redact_json_strings(ev);
  EXPECT_EQ(ev["prompt"], "tab http://h/?auth=[REDACTED]");
  EXPECT_EQ(ev["nested"]["u"], "http://h/p?key=[REDACTED]");
}

}  // namespace
}  // namespace ouro::actions
