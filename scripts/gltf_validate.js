#!/usr/bin/env node
// Runs the Khronos glTF validator (npm gltf-validator, installed by scripts/setup into
// .tools/npm) over .gltf/.glb files:  node scripts/gltf_validate.js FILE...
// Prints one line per file (errors, warnings, infos, hints and the first messages) and exits
// 1 if any file has an error, 2 if the validator is not installed.
'use strict';
const fs = require('fs');
const path = require('path');

const module_dir = path.join(__dirname, '..', '.tools', 'npm', 'node_modules', 'gltf-validator');
let validator;
try {
  validator = require(module_dir);
} catch (e) {
  console.error('gltf_validate: the Khronos validator is not installed (' + module_dir + '): run scripts/setup');
  process.exit(2);
}

async function validate(file) {
  const data = new Uint8Array(fs.readFileSync(file));
  const dir = path.dirname(file);
  return validator.validateBytes(data, {
    uri: path.basename(file),
    maxIssues: 100,
    externalResourceFunction: (uri) =>
      new Promise((resolve, reject) => {
        try {
          resolve(new Uint8Array(fs.readFileSync(path.resolve(dir, decodeURIComponent(uri)))));
        } catch (e) {
          reject(e.toString());
        }
      }),
  });
}

(async () => {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error('usage: node scripts/gltf_validate.js FILE...');
    process.exit(2);
  }
  let bad = 0;
  const totals = {errors: 0, warnings: 0, infos: 0, hints: 0};
  for (const f of files) {
    const r = await validate(f);
    const i = r.issues;
    totals.errors += i.numErrors;
    totals.warnings += i.numWarnings;
    totals.infos += i.numInfos;
    totals.hints += i.numHints;
    const codes = [...new Set(i.messages.map((m) => m.code + ' ' + (m.pointer || '')))].slice(0, 4).join('; ');
    console.log(`${i.numErrors ? 'ERROR' : 'ok   '} ${f}: ${i.numErrors} errors, ${i.numWarnings} warnings, ` +
                `${i.numInfos} infos, ${i.numHints} hints${codes ? ' (' + codes + ')' : ''}`);
    if (i.numErrors) {
      bad += 1;
      for (const m of i.messages.filter((m) => m.severity === 0).slice(0, 10))
        console.log(`      ${m.code} at ${m.pointer}: ${m.message}`);
    }
  }
  console.log(`gltf_validate: ${files.length} files, ${totals.errors} errors, ${totals.warnings} warnings, ` +
              `${totals.infos} infos, ${totals.hints} hints; validator ${validator.version()}`);
  process.exit(bad ? 1 : 0);
})();
