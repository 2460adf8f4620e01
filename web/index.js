// Loads the viewer (wasm-bindgen's `--target web` output in pkg/) and wires
// the buttons; the viewer itself fills #viewer and keeps #status current.
import init, { readbackMemg, downloadGltf } from './pkg/motion_viewer_web.js';

const canvas = document.getElementById('viewer');

// F12 and Shift+F12 are the window's screenshot keys; the button presses F12.
function press(key) {
  for (const type of ['keydown', 'keyup']) {
    canvas.dispatchEvent(new KeyboardEvent(type, { key, code: key, bubbles: true }));
  }
}

document.getElementById('screenshot').addEventListener('click', () => press('F12'));
// The simulated dog (the window's X): off → beside → ghost.
document.getElementById('simulate').addEventListener('click', () => {
  press('x');
  canvas.focus();
});
// The glTF button asks the viewer for the scene it holds (edits, layout and
// materials included); the keys go back to the viewer afterwards.
document.getElementById('gltf').addEventListener('click', () => {
  try {
    downloadGltf();
  } catch (e) {
    console.error('glTF:', e);
  }
  canvas.focus();
});

// For scripts and tests: the MEMG compute-shader check (see web/src/check.rs).
window.motionViewer = { readbackMemg, downloadGltf };

try {
  await init();
} catch (e) {
  document.getElementById('status').textContent = JSON.stringify({ panic: String(e) });
  throw e;
}
canvas.focus();
document.body.dataset.ready = 'true';
