// Drives the web page in headless Chromium for tests/web_page.rs.
//
//   node web_test.js URL MODE DATA_DIR OUT_DIR
//
// MODE `webgpu`: WebGPU on (SwiftShader); opens the three samples, checks
// (and flags.mtl) from #status and screenshots that they play, that Space pauses and → steps
// one frame, that MEMG positions read back from the compute shader match the
// CPU reference, and that a truncated .mtn dropped on the canvas shows its
// error while the rest plays on. MODE `webgl2`: no WebGPU; the page must
// fall back to WebGL2 and play, and, without WebAssembly SIMD, say so in one
// line. MODE `curves`: opens sony_stand_sit.mtn,
// presses C, reads the channels and the plot's mapping from #status and
// clicks on the plot: the time must become the time under the click.
// MODE `curves-bench` (DATA_DIR holding long.mtn, see
// benches/curves_frame_time.sh): the page's frame time with the curves panel
// open on the 20 joints (`?curves=PRM:*`), closed (C), and open again.
// MODE `edit`: opens the Sony .mtn, selects
// keyframe 2 with `.` twice, types 12.5 into its first joint's field (Enter,
// waits for #status to say the field has the keyboard, then the digits,
// then Enter), saves (Ctrl+S: a download, edited_1.mtn), downloads the
// page's glTF of the edited motion (#gltf), undoes (Ctrl+Z) and saves again (edited_2.mtn); the Rust side checks the
// files. Prints `RESULT {json}`; exits 1 on a failure.
'use strict';
const { chromium } = require('playwright-core');
const fs = require('fs');
const path = require('path');

const [url, mode, dataDir, outDir] = process.argv.slice(2);
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

const common = [
  '--headless', '--no-sandbox', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-quic',
  '--remote-debugging-pipe', '--window-size=1280,800',
  // Software rendering that shows in screenshots.
  '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
];
const webgpu = ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-vulkan=swiftshader'];

function fail(message) {
  throw new Error(message);
}

async function status(page) {
  const text = await page.locator('#status').textContent();
  try {
    return JSON.parse(text);
  } catch {
    fail(`#status is not JSON: ${text}`);
  }
}

/// Polls #status until `pred` holds; fails after `ms` with the last status.
async function until(page, what, pred, ms = 60000) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    last = await status(page);
    if (last.panic) fail(`the page panicked: ${last.panic}`);
    if (pred(last)) return last;
    await page.waitForTimeout(100);
  }
  fail(`timed out waiting for ${what}; status ${JSON.stringify(last)}`);
}

async function shot(page, name) {
  const file = path.join(outDir, name);
  const png = await page.locator('#viewer').screenshot({ path: file });
  return png;
}

async function open(page) {
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  await until(page, 'the GPU', (s) => s.backend !== undefined && s.backend !== '');
  // flags.mtl too: the page's glTF must colour the flags as the CLI's does.
  const files = ['flags.obj', 'flags.mtl', 'flags.bin', 'sony_stand_sit.mtn', 'hands.mrtk'].map(
    (f) => path.join(dataDir, f));
  await page.setInputFiles('#files', files);
  return until(page, '3 tracks', (s) => s.tracks === 3);
}

/// Frame time in the page: requestAnimationFrame intervals over `ms`.
async function rafFrameMs(page, ms) {
  return page.evaluate((ms) => new Promise((resolve) => {
    const times = [];
    const start = performance.now();
    function tick(t) {
      times.push(t);
      if (t - start < ms) requestAnimationFrame(tick);
      else resolve((times[times.length - 1] - times[0]) / Math.max(1, times.length - 1));
    }
    requestAnimationFrame(tick);
  }), ms);
}

async function playsOn(page, what) {
  const a = await status(page);
  await page.waitForTimeout(1500);
  const b = await status(page);
  if (!(b.playing && b.time_s !== a.time_s)) {
    fail(`${what}: time does not advance while playing (${a.time_s} → ${b.time_s})`);
  }
  return b;
}

async function runWebGpu(page, result) {
  let s = await open(page);
  if (s.backend !== 'WebGPU') fail(`backend ${s.backend}, expected WebGPU`);
  if (s.error !== null) fail(`load error: ${s.error}`);
  await playsOn(page, 'WebGPU');
  const title = await page.title();
  if (!/flags\.bin.*sony_stand_sit\.mtn.*hands\.mrtk — \d+\.\d s/.test(title)) {
    fail(`the title does not show the files and the time: ${title}`);
  }
  result.title = title;
  const a = await shot(page, 'playing_a.png');
  await page.waitForTimeout(700);
  const b = await shot(page, 'playing_b.png');
  if (a.equals(b)) fail('the picture does not change while playing');
  await page.screenshot({ path: path.join(outDir, 'page_playing.png') });

  // Space pauses: the time holds.
  await page.focus('#viewer');
  await page.keyboard.press('Space');
  const paused = await until(page, 'a pause', (s) => !s.playing, 5000);
  await page.waitForTimeout(600);
  const still = await status(page);
  if (still.time_s !== paused.time_s) fail(`paused, yet time moved ${paused.time_s} → ${still.time_s}`);
  // → shows the next frame, on its boundary (see Timeline::step_frames),
  // and again: from the start, as on a busy machine the motion may have
  // played to its last frame before the pause, and → then has nowhere to go.
  await page.keyboard.press('Home');
  const start = await until(page, 'the start', (s) => s.frame === 0, 5000);
  const period = start.frame_period_s;
  const onBoundary = (s) => Math.abs(s.time_s / period - s.frame) < 1e-6;
  await page.keyboard.press('ArrowRight');
  const snapped = await until(page, 'a step', (s) => s.time_s !== start.time_s, 5000);
  if (snapped.frame !== start.frame + 1 || !onBoundary(snapped)) {
    fail(`→ went from ${start.time_s} s (frame ${start.frame}) to ${snapped.time_s} s (frame ${snapped.frame}), frame period ${period} s`);
  }
  await page.keyboard.press('ArrowRight');
  const stepped = await until(page, 'a second step', (s) => s.frame !== snapped.frame, 5000);
  if (stepped.frame !== snapped.frame + 1 || !onBoundary(stepped)) {
    fail(`→ went from frame ${snapped.frame} to ${stepped.frame} (${stepped.time_s} s)`);
  }
  result.paused_frame = snapped.frame;
  result.stepped_frame = stepped.frame;

  // The compute shader in the page against the CPU reference.
  const check = JSON.parse(await page.evaluate((t) => window.motionViewer.readbackMemg(t), 20));
  if (check.backend !== 'WebGPU') fail(`MEMG check ran on ${check.backend}`);
  if (!(check.vertices > 0)) fail('MEMG check compared no vertices');
  if (!(check.moved > 100 * check.tolerance)) fail(`frame 20 barely moved (${check.moved})`);
  if (!(check.max_error <= check.tolerance)) {
    fail(`GPU positions are ${check.max_error} of the diagonal from the CPU reference (> ${check.tolerance})`);
  }
  result.memg_check = check;

  // Play again, then drop a truncated .mtn onto the canvas.
  await page.keyboard.press('Space');
  await until(page, 'playing again', (s) => s.playing, 5000);
  const whole = fs.readFileSync(path.join(dataDir, 'sony_stand_sit.mtn'));
  const cut = Array.from(whole.subarray(0, Math.floor(whole.length / 2)));
  await page.evaluate((bytes) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(bytes)], 'cut.mtn'));
    const canvas = document.getElementById('viewer');
    canvas.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, cut);
  s = await until(page, 'the truncated file\'s error', (s) => s.error !== null, 20000);
  if (!s.error.includes('cut.mtn')) fail(`the error does not name the file: ${s.error}`);
  if (s.error.includes('\n')) fail(`the error is not one line: ${s.error}`);
  if (s.tracks !== 3) fail(`${s.tracks} tracks after the broken file`);
  result.error = s.error;
  await playsOn(page, 'after the broken file');

  // The page's downloads: a PNG screenshot (F12, read back through wgpu)
  // and the loaded scene as a .glb.
  const png = await download(page, '#screenshot');
  if (!png.bytes.subarray(1, 4).equals(Buffer.from('PNG'))) fail(`${png.name} is no PNG`);
  const width = png.bytes.readUInt32BE(16);
  const height = png.bytes.readUInt32BE(20);
  if (width < 320 || height < 200) fail(`the screenshot is ${width}×${height}`);
  const glb = await download(page, '#gltf');
  if (!glb.bytes.subarray(0, 4).equals(Buffer.from('glTF'))) fail(`${glb.name} is no .glb`);
  if (glb.bytes.readUInt32LE(8) !== glb.bytes.length) fail(`${glb.name}: length field is wrong`);
  result.screenshot = { name: png.name, width, height };
  result.gltf = { name: glb.name, bytes: glb.bytes.length };

  result.raf_frame_ms = await rafFrameMs(page, 3000);
  result.status_frame_ms = (await status(page)).frame_ms;
  await page.screenshot({ path: path.join(outDir, 'page.png') });
}

/// Clicks `button` and returns the file the page offers.
async function download(page, button) {
  const [file] = await Promise.all([
    page.waitForEvent('download', { timeout: 30000 }),
    page.click(button),
  ]);
  const to = path.join(outDir, file.suggestedFilename());
  await file.saveAs(to);
  return { name: file.suggestedFilename(), bytes: fs.readFileSync(to) };
}

/// Presses `key` and keeps the file the page offers as `saveName`.
async function downloadOnKey(page, key, saveName) {
  const [file] = await Promise.all([
    page.waitForEvent('download', { timeout: 30000 }),
    page.keyboard.press(key),
  ]);
  await file.saveAs(path.join(outDir, saveName));
  return { name: file.suggestedFilename(), file: saveName };
}

async function runEdit(page, result) {
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  await until(page, 'the GPU', (s) => s.backend !== undefined && s.backend !== '');
  await page.setInputFiles('#files', [path.join(dataDir, 'sony_stand_sit.mtn')]);
  let s = await until(page, 'the motion', (s) => s.tracks === 1 && s.edit !== null);
  if (s.edit.dirty || s.edit.undo_depth !== 0) fail(`edited before any edit: ${JSON.stringify(s.edit)}`);
  await page.focus('#viewer');
  if (s.playing) {
    await page.keyboard.press('Space');
    await until(page, 'a pause', (s) => !s.playing, 5000);
  }
  await page.keyboard.press('Home');
  await until(page, 'the start', (s) => s.frame === 0, 5000);
  await page.keyboard.press('.');
  await until(page, 'keyframe 1 selected', (s) => s.edit.keyframe === 1, 5000);
  await page.keyboard.press('.');
  await until(page, 'keyframe 2 selected', (s) => s.edit.keyframe === 2, 5000);
  // Enter gives the keyboard to the keyframe's first joint field; the page
  // says when the field has it, its text selected (no fixed wait: on a busy
  // machine the frame that moves the focus can come late).
  await page.keyboard.press('Enter');
  await until(page, 'the field to take the keyboard', (s) => s.edit.typing, 20000);
  // What is typed replaces the selected text (no Ctrl+A: a first version
  // appended to it in the page).
  await page.keyboard.type('12.5', { delay: 50 });
  await page.screenshot({ path: path.join(outDir, 'page_typed.png') });
  await page.keyboard.press('Enter');
  await until(page, 'the edit', (s) => s.edit.dirty && s.edit.undo_depth === 1, 10000);
  result.dirty_title = await page.title();
  await page.screenshot({ path: path.join(outDir, 'page_edit.png') });
  result.edited = await downloadOnKey(page, 'Control+s', 'edited_1.mtn');
  await until(page, 'saved', (s) => !s.edit.dirty, 5000);
  // The page's glTF of the motion as edited (the Rust side compares it
  // with the CLI's glTF of edited_1.mtn).
  const glb = await download(page, '#gltf');
  result.edited_gltf = glb.name;
  await page.focus('#viewer');
  result.saved_title = await page.title();
  await page.keyboard.press('Control+z');
  await until(page, 'the undo', (s) => s.edit.undo_depth === 0, 5000);
  result.undone = await downloadOnKey(page, 'Control+s', 'edited_2.mtn');
  result.status = await status(page);
}

async function runWebGl2(page, result) {
  const s = await open(page);
  if (s.backend !== 'WebGL2') fail(`backend ${s.backend}, expected WebGL2`);
  if (s.error !== null) fail(`load error: ${s.error}`);
  await playsOn(page, 'WebGL2');
  const a = await shot(page, 'webgl2_a.png');
  await page.waitForTimeout(700);
  const b = await shot(page, 'webgl2_b.png');
  if (a.equals(b)) fail('WebGL2: the picture does not change while playing');
  const png = await download(page, '#screenshot');
  if (!png.bytes.subarray(1, 4).equals(Buffer.from('PNG'))) fail(`WebGL2: ${png.name} is no PNG`);
  result.screenshot = { name: png.name, bytes: png.bytes.length };
  result.raf_frame_ms = await rafFrameMs(page, 3000);
  result.status_frame_ms = (await status(page)).frame_ms;
  await page.screenshot({ path: path.join(outDir, 'page_webgl2.png') });
}

/// The page in a browser without WebAssembly SIMD (WebAssembly.validate made
/// to refuse every module, as such a browser refuses the SIMD probe): the
/// one line #status shows instead of the viewer.
async function withoutSimd(browser) {
  const page = await browser.newPage();
  await page.addInitScript(() => {
    WebAssembly.validate = () => false;
  });
  await page.goto(url);
  // The line #status shows in place of the viewer, as soon as it is there.
  const said = await page
    .waitForFunction(() => {
      try {
        return JSON.parse(document.getElementById('status').textContent).panic;
      } catch {
        return undefined;
      }
    }, null, { timeout: 30000 })
    .catch(() => fail('without WebAssembly SIMD the page said nothing'));
  const panic = await said.jsonValue();
  await page.close();
  return panic;
}

async function runCurves(page, result) {
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  await until(page, 'the GPU', (s) => s.backend !== undefined && s.backend !== '');
  await page.setInputFiles('#files', [path.join(dataDir, 'sony_stand_sit.mtn')]);
  await until(page, 'the motion', (s) => s.tracks === 1);
  await page.focus('#viewer');
  await page.keyboard.press('Space');
  const paused = await until(page, 'a pause', (s) => !s.playing, 5000);
  if (paused.curves.open) fail('the curves panel starts open');
  await page.keyboard.press('c');
  await until(page, 'the curves drawn', (s) => s.curves.open && s.curves.plot, 20000);
  // The axes settle their widths over the first frames.
  await page.waitForTimeout(1500);
  const open = await status(page);
  const plot = open.curves.plot;
  const box = await page.locator('#viewer').boundingBox();
  // 37 % across the plot, near its bottom edge (below every curve).
  const x = Math.round(plot.left + 0.37 * (plot.right - plot.left));
  const y = Math.round(plot.bottom - 4);
  const want = plot.t0 + ((x - plot.left) / (plot.right - plot.left)) * (plot.t1 - plot.t0);
  await page.mouse.click(box.x + x, box.y + y);
  const seeked = await until(page, 'the seek', (s) => s.time_s !== paused.time_s, 10000);
  result.curves = open.curves;
  result.clicked_s = want;
  result.time_s = seeked.time_s;
  result.frame_period_s = seeked.frame_period_s;
  await page.screenshot({ path: path.join(outDir, 'page_curves.png') });
}

async function runCurvesBench(page, result) {
  await page.goto(`${url}?curves=${encodeURIComponent('PRM:*')}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  await until(page, 'the GPU', (s) => s.backend !== undefined && s.backend !== '');
  await page.setInputFiles('#files', [path.join(dataDir, 'long.mtn')]);
  const s = await until(page, 'the motion with its curves', (s) => s.tracks === 1 && s.curves.plot, 120000);
  result.backend = s.backend;
  result.frame_count = s.frame_count;
  result.channels = s.curves.channels.length;
  await page.focus('#viewer');
  await page.waitForTimeout(3000);
  result.open_ms = await rafFrameMs(page, 10000);
  await page.keyboard.press('c');
  await until(page, 'the panel closed', (s) => !s.curves.open, 10000);
  await page.waitForTimeout(3000);
  result.closed_ms = await rafFrameMs(page, 10000);
  await page.keyboard.press('c');
  await until(page, 'the panel open again', (s) => s.curves.open && s.curves.plot, 10000);
  await page.waitForTimeout(3000);
  result.open_again_ms = await rafFrameMs(page, 10000);
  result.ratio = (result.open_ms + result.open_again_ms) / 2 / result.closed_ms;
  await page.screenshot({ path: path.join(outDir, 'page_curves_bench.png') });
}

/// The simulated dog (X): the motions of SIM_FILES (path-delimited; the
/// seed's stand-sit by default) opened, X pressed, #status polled until
/// every verdict is in. The wall time from X to the last verdict gives the
/// page's simulated seconds per wall second.
async function runSim(page, result) {
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  await until(page, 'the GPU', (s) => s.backend !== undefined && s.backend !== '');
  const files = (process.env.SIM_FILES || path.join(dataDir, 'sony_stand_sit.mtn'))
    .split(path.delimiter);
  await page.setInputFiles('#files', files);
  await until(page, 'the motions', (s) => s.tracks === files.length);
  await page.focus('#viewer');
  await page.keyboard.press('Space');
  await until(page, 'a pause', (s) => !s.playing, 5000);
  const started = Date.now();
  await page.keyboard.press('x');
  const done = await until(page, 'every verdict',
    (s) => s.sim && s.sim.tracks.length === files.length
      && s.sim.tracks.every((t) => t.state !== 'running'), 280000);
  result.wall_s = (Date.now() - started) / 1000;
  result.sim = done.sim;
  result.backend = done.backend;
  await page.screenshot({ path: path.join(outDir, 'page_sim.png') });
}

(async () => {
  const args = mode === 'webgl2' ? common : [...common, ...webgpu];
  const userDir = fs.mkdtempSync(path.join(outDir, 'profile-'));
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    ignoreDefaultArgs: true,
    args: [...args, `--user-data-dir=${userDir}`],
  });
  const result = { mode };
  const console = [];
  try {
    const page = await browser.newPage({
      viewport: { width: 1280, height: 800 },
      acceptDownloads: true,
    });
    page.on('console', (m) => console.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => console.push(`pageerror: ${e}`));
    if (mode === 'webgpu') await runWebGpu(page, result);
    else if (mode === 'curves') await runCurves(page, result);
    else if (mode === 'curves-bench') await runCurvesBench(page, result);
    else if (mode === 'edit') await runEdit(page, result);
    else if (mode === 'sim') await runSim(page, result);
    else {
      await runWebGl2(page, result);
      result.no_simd = await withoutSimd(browser);
    }
    process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  } catch (e) {
    process.stdout.write(`console:\n  ${console.slice(-30).join('\n  ')}\n`);
    process.stdout.write(`FAILED ${e.message}\n`);
    process.exitCode = 1;
  } finally {
    await browser.close();
  }
})();
