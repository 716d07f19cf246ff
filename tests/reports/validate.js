#!/usr/bin/env node
// Validates JSON files against a JSON Schema (draft 2020-12) with ajv and its formats
// (uri, uri-reference, uuid, date-time, ...). Prints every error with its JSON path.
// Usage: node validate.js SCHEMA.json FILE.json...
'use strict';
const fs = require('fs');
const path = require('path');

const args = process.argv.slice(2);
if (args.length < 2) {
  console.error('usage: validate.js SCHEMA.json FILE.json...');
  process.exit(2);
}
let Ajv2020, addFormats;
try {
  Ajv2020 = require('ajv/dist/2020');
  addFormats = require('ajv-formats');
} catch (e) {
  console.error(`validate: ajv is not installed in ${path.join(__dirname, 'node_modules')}: ` +
                'run scripts/install-deps.sh');
  process.exit(2);
}
const [schemaPath, ...files] = args;
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, validateFormats: true });
addFormats(ajv);
const validate = ajv.compile(JSON.parse(fs.readFileSync(schemaPath, 'utf8')));
let bad = 0;
for (const f of files) {
  let data;
  try {
    data = JSON.parse(fs.readFileSync(f, 'utf8'));
  } catch (e) {
    console.error(`${f}: not JSON: ${e.message}`);
    ++bad;
    continue;
  }
  if (validate(data)) continue;
  ++bad;
  for (const e of validate.errors)
    console.error(`${f}: ${e.instancePath || '/'}: ${e.message}` +
                  (e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''));
}
console.log(`validate: ${files.length - bad} of ${files.length} file(s) valid against ${path.basename(schemaPath)}`);
process.exit(bad ? 1 : 0);
