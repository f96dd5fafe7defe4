// Parameter types of the capability registry, written once as TypeScript-like text and used for
// everything a type is needed for: argument checks (nested fields included), the API reference
// the model reads, and JSON Schemas for tool-calling and MCP. No I/O; tested from plain values.
//
// Grammar (whitespace is free):
//   type    := postfix ('|' postfix)*
//   postfix := primary ('[]')*
//   primary := 'string' | 'number' ['(' range ')'] | 'integer' ['(' range ')'] | 'boolean' | 'null'
//            | 'any' | 'object' | 'array' | 'function'
//            | "'" text "'"                            a string literal ('up' | 'down')
//            | 'Array<' type '>' | 'Record<string,' type '>'
//            | '{' [field (',' field)*] [',' '...'] '}'   '...' admits fields not listed
//            | '(' type ')'
//            | 'Secret'                                  a handle from secret(name)
//   field   := name ['?'] ':' type
//   range   := [min] '..' [max]   (inclusive)  |  '>' n  |  '>=' n
#pragma once

#include "base/json.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ouro::actions {

struct Schema {
  enum class Kind { Any, String, Number, Integer, Boolean, Null, Object, Array, Function, Literal, Union, Record };
  Kind kind = Kind::Any;
  std::string literal;                    // Literal
  std::optional<double> min, max;         // Number/Integer
  bool min_exclusive = false;
  struct Field {
    std::string name;
    bool optional = false;
    std::shared_ptr<const Schema> type;
  };
  std::vector<Field> fields;              // Object with listed fields
  bool open = true;                       // Object: fields not listed are allowed
  bool secret_handle = false;             // 'Secret': { __ouroSecret: name }
  std::vector<std::shared_ptr<const Schema>> items;  // Union members; Array/Record element (one)
};
using SchemaPtr = std::shared_ptr<const Schema>;

// Parses a type text; the error names the offset and what was expected there.
Result<SchemaPtr> parse_schema(std::string_view text);

// Checks a value. On mismatch: "options.double must be a boolean, got number 1" (path first).
std::optional<std::string> check_value(const Schema& schema, const json& value, const std::string& path);

// "a boolean", "one of 'up', 'down'", "an object { double?, timeout? }" — for messages.
std::string describe_schema(const Schema& schema);

// A JSON Schema (draft 2020-12 subset) of the type, for tool definitions.
json to_json_schema(const Schema& schema);

}  // namespace ouro::actions
