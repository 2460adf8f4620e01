// Runs the Khronos glTF-Validator over each file named on the command line
// and prints one JSON line per file: its path, the issue counts and every
// error, warning and info message. Exits 1 if any file has an error or a
// warning, 2 if a file could not be validated at all.
//
// Usage: node validate.js FILE.glb [FILE.gltf ...]
'use strict';

const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');

async function validate(file) {
  const bytes = new Uint8Array(fs.readFileSync(file));
  const report = await validator.validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 0,
    // A .gltf's .bin lies beside it.
    externalResourceFunction: (uri) =>
      fs.promises.readFile(path.resolve(path.dirname(file), decodeURIComponent(uri)))
        .then((data) => new Uint8Array(data)),
  });
  const issues = report.issues;
  return {
    file,
    errors: issues.numErrors,
    warnings: issues.numWarnings,
    infos: issues.numInfos,
    hints: issues.numHints,
    // Severity 0 error, 1 warning, 2 info, 3 hint.
    messages: issues.messages
      .filter((m) => m.severity <= 2)
      .map((m) => `${['error', 'warning', 'info'][m.severity]} ${m.code} ${m.pointer || ''}: ${m.message}`),
  };
}

(async () => {
  let status = 0;
  for (const file of process.argv.slice(2)) {
    try {
      const result = await validate(file);
      console.log(JSON.stringify(result));
      if (result.errors > 0 || result.warnings > 0) status = Math.max(status, 1);
    } catch (e) {
      console.log(JSON.stringify({ file, failure: String(e) }));
      status = 2;
    }
  }
  process.exit(status);
})();
