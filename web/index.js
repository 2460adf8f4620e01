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

// The viewer is built with WebAssembly SIMD (.cargo/config.toml): a browser
// without it could not compile the module, so it is told why in one line.
// The bytes: a function returning i8x16.popcnt(i8x16.splat(0)).
const simd = WebAssembly.validate(new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15,
  253, 98, 11,
]));

try {
  if (!simd) {
    throw new Error('this browser lacks WebAssembly SIMD, which the viewer needs ' +
      '(Chrome 91, Firefox 89, Safari 16.4 or later)');
  }
  await init();
} catch (e) {
  document.getElementById('status').textContent = JSON.stringify({ panic: String(e) });
  throw e;
}
canvas.focus();
document.body.dataset.ready = 'true';
