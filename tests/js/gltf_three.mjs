// Opens a .glb with three.js (GLTFLoader.parse, no browser), plays its
// animation once with an AnimationMixer and prints, for each time asked, the
// WORLD position of every node and of every mesh vertex (morph targets
// applied by Mesh.getVertexPosition, then the mesh's world matrix), as one
// JSON object on stdout:
//
//   {"times": [{"time": t, "nodes": [{"name", "extras", "world": [x,y,z]}],
//               "meshes": [{"name", "objVertices", "positions": [[x,y,z]…]}]}]}
//
// `objVertices` is the primitive's extras (runs [first, count] of 0-based
// .obj vertices) as three.js hands them over (geometry.userData).
//
// Usage: node gltf_three.mjs FILE.glb T0 [T1 ...]
import fs from 'node:fs';
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

const [file, ...timeArgs] = process.argv.slice(2);
const times = timeArgs.map(Number);
const bytes = fs.readFileSync(file);
const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);

const gltf = await new Promise((resolve, reject) =>
  new GLTFLoader().parse(buffer, '', resolve, reject));
const scene = gltf.scene;
const mixer = new THREE.AnimationMixer(scene);
for (const clip of gltf.animations) {
  const action = mixer.clipAction(clip);
  action.setLoop(THREE.LoopOnce, 1);
  // Held at its last pose after the end, as the viewer holds a track.
  action.clampWhenFinished = true;
  action.play();
}

const round = (v) => [v.x, v.y, v.z];
const out = { times: [] };
for (const t of times) {
  mixer.setTime(t);
  scene.updateMatrixWorld(true);
  const nodes = [];
  const meshes = [];
  const v = new THREE.Vector3();
  scene.traverse((o) => {
    const world = new THREE.Vector3().setFromMatrixPosition(o.matrixWorld);
    nodes.push({ name: o.name, extras: o.userData || {}, world: round(world) });
    if (o.isMesh) {
      const count = o.geometry.attributes.position.count;
      const positions = new Array(count);
      for (let i = 0; i < count; i++) {
        o.getVertexPosition(i, v);
        v.applyMatrix4(o.matrixWorld);
        positions[i] = round(v);
      }
      meshes.push({
        name: o.name,
        objVertices: (o.geometry.userData || {}).objVertices || null,
        positions,
      });
    }
  });
  out.times.push({ time: t, nodes, meshes });
}
process.stdout.write(JSON.stringify(out));
