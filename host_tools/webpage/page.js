// The page around the box: loads MicroPython WebAssembly, puts the firmware's files in its
// filesystem, drives the main loop from a timer, turns clicks and keys into held pins, and
// shows what board.py reports (segments, tones, state, log). Nothing here draws a digit: the
// segments are the SVG of host_tools/virtual/display_svg.py; this only toggles their class.
import { loadMicroPython } from "./micropython.mjs";

const HOLD_MS = 60;    // a tap: held 60 ms, then 60 ms released (as in the simulator)
const GAP_MS = 60;
const SEEN_MS = 30;     // and for this long of the box's own steps each way: its debounce is
                        // 20 ms, and a busy browser may run its timer far less often than HOLD_MS
const LONG_MS = 1000;  // past the firmware's 700 ms long press
const STEP_MS = 10;
const STORAGE = "matchbox-flash";
const SEGMENTS = "abcdefg";

// The keyboard, as in the terminal simulator (host_tools/terminal/keyboard.py).
const SIMPLE = { s: "AS", S: "AS", "=": "AS", p: "PASS", P: "PASS", u: "UNDO", U: "UNDO",
  m: "MENU", x: "DEL", " ": "PLAY", Enter: "PLAY", Backspace: "DEL" };
const LONG = { M: "MENU", X: "DEL", Delete: "DEL" };

function keyFor(event) {
  if (event.ctrlKey || event.altKey || event.metaKey) return null;
  const k = event.key;
  if (k.length === 1 && "0123456789abcdefghABCDEFGH".includes(k)) return [k.toUpperCase(), HOLD_MS];
  if (k in SIMPLE) return [SIMPLE[k], HOLD_MS];
  if (k in LONG) return [LONG[k], LONG_MS];
  return null;
}

let mp = null;
let board = null;
const queue = [];       // taps waiting: [name, hold ms]
let current = null;     // the key held now: {name, up, free, released}
let quietSteps = 0;     // steps since the last key was let go (and its gap passed)
let audio = null;
let osc = null;
let markOff = 0;
let sounding = false;
const cells = [];       // cells[display] = {group, segs[digit][8], colon[2], svg}

function $(id) { return document.getElementById(id); }

// An entry [key, {name: value}] of the page's words (board.py's log, order, table and errors)
// in the reader's language; a value may be an entry itself.
function worded(entry) {
  const args = {};
  for (const name in entry[1]) {
    const v = entry[1][name];
    args[name] = Array.isArray(v) ? worded(v) : v;
  }
  return window.W(entry[0], args);
}

function say(text, isError) {
  const m = $("message");
  m.textContent = text;
  m.classList.toggle("error", !!isError);
}

// --- the box's flash in the browser's storage -------------------------------------------

function toBase64(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 8192) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
  return btoa(s);
}

function fromBase64(text) {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

function walk(dir, rel, out) {
  for (const name of mp.FS.readdir(dir)) {
    if (name === "." || name === "..") continue;
    const path = dir + "/" + name;
    const r = rel ? rel + "/" + name : name;
    if (mp.FS.isDir(mp.FS.stat(path).mode)) walk(path, r, out);
    else out[r] = toBase64(mp.FS.readFile(path));
  }
}

function saveFlash() {
  const files = {};
  if (mp.FS.analyzePath("/flash/games").exists) walk("/flash/games", "games", files);
  try {
    localStorage.setItem(STORAGE, JSON.stringify(files));
  } catch (err) {
    say(window.W("web_storage_refused", { error: err.name }), true);
  }
}

function restoreFlash() {
  let files = {};
  try { files = JSON.parse(localStorage.getItem(STORAGE) || "{}") || {}; } catch (e) { files = {}; }
  for (const rel of Object.keys(files)) {
    const path = "/flash/" + rel;
    mp.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    mp.FS.writeFile(path, fromBase64(files[rel]));
  }
}

// --- what the board reports ---------------------------------------------------------------

function show(frameText) {
  if (!frameText) return;
  const f = JSON.parse(frameText);
  if (f.d) {
    f.d.forEach((d, i) => {
      const c = cells[i];
      const lit = d[5] === 1;
      c.group.classList.toggle("dark", !lit);
      for (let j = 0; j < 4; j++) {
        for (let b = 0; b < 8; b++) c.segs[j][b].classList.toggle("on", lit && ((d[j] >> b) & 1) === 1);
      }
      for (const dot of c.colon) dot.classList.toggle("on", lit && d[4] === 1);
      c.svg.setAttribute("aria-label", (i + 1) + " " + window.W("display_names")[i] + ": "
        + (lit ? f.t[i] : window.W("web_dark")));
    });
  }
  if (f.b) for (const [hz, duty] of f.b) tone(hz, duty);
  if (f.m) setupShown(f.m);
  if (f.s) panel(f.s, f.order, f.table);
  if (f.log) log(f.log);
  if (f.flash) saveFlash();
}

function tone(hz, duty) {
  const mark = $("buzzer");
  if (duty > 0) {
    if (!sounding) mark.dataset.tones = String(Number(mark.dataset.tones || 0) + 1);  // tones begun
    sounding = true;
    mark.classList.add("on");
    markOff = Infinity;
    if (audio) {
      if (!osc) {
        osc = audio.createOscillator();
        const gain = audio.createGain();
        gain.gain.value = 0.05;
        osc.type = "square";
        osc.connect(gain).connect(audio.destination);
        osc.start();
      }
      osc.frequency.value = hz;
    }
  } else {
    sounding = false;
    markOff = performance.now() + 250;  // a short beep stays visible a moment
    if (osc) { osc.stop(); osc = null; }
  }
}

function panel(s, order, table) {
  $("p-turn").textContent = s.finished ? window.W("web_over", { ranking: s.ranking.join(" ") })
    : window.W("web_to_act", { seat: s.turn });
  $("p-order").textContent = worded(order);
  $("p-order").classList.toggle("revolution", s.revolution);
  $("p-table").textContent = worded(table);
  $("p-supply").textContent = String(s.supply);
  const body = $("seats");
  body.textContent = "";
  for (const seat of s.seats) {
    const tr = document.createElement("tr");
    if (seat.seat === s.turn && !s.finished) tr.className = "turn";
    for (const v of [(seat.seat === s.turn && !s.finished ? "\u25B6 " : "") + seat.seat,
      seat.cards, seat.sticks, seat.rank || ""]) {
      const td = document.createElement("td");
      td.textContent = String(v);
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
}

// The setup menu explained while it is open, as the terminal simulator does, with the item on
// the displays now marked: m is [the app's mode, the setup item (the hands one item)].
function setupShown(m) {
  const open = m[0] === "setup";
  $("setup").hidden = !open;
  document.querySelectorAll("#setup-items li").forEach((li, i) => li.classList.toggle("now", open && i === m[1]));
}

function log(lines) {
  const list = $("log");
  if (lines.length) { list.hidden = false; $("happened").hidden = false; }
  for (const line of lines) {
    const li = document.createElement("li");
    li.textContent = worded(line);
    list.appendChild(li);
  }
  while (list.children.length > 60) list.removeChild(list.firstChild);
  list.scrollTop = list.scrollHeight;
}

// --- keys ---------------------------------------------------------------------------------

function wake() {
  if (!audio && window.AudioContext) audio = new AudioContext();
  if (audio && audio.state === "suspended") audio.resume();
}

function tap(name, hold) {
  queue.push([name, hold]);
}

// The key held now goes up once its time is over and the box's steps have seen it down for
// SEEN_MS (a tap is never lost between two steps of a slow timer), and is free once its gap
// is over and the steps have seen it up as long.
function drive(now) {
  if (current && !current.released && now >= current.up && seenFor(current)) {
    board.key(current.name, false);
    current.released = true;
    current.seen = null;
    document.querySelectorAll('[data-key="' + current.name + '"]').forEach((b) => b.classList.remove("down"));
  }
  if (current && current.released && now >= current.free && seenFor(current)) {
    current = null;
    quietSteps = 0;
  }
  if (!current && queue.length) {
    const [name, hold] = queue.shift();
    press(name, now, now + hold);
  }
}

function seenFor(key) {
  // whether the box's steps have seen the key as it is now over SEEN_MS (tick() notes the first
  // and the last step that saw it so)
  return key.seen !== null && key.last - key.seen >= SEEN_MS;
}

function press(name, now, up) {
  board.key(name, true);
  current = { name: name, start: now, up: up, free: up + GAP_MS, released: false, seen: null, last: null };
  document.querySelectorAll('[data-key="' + name + '"]').forEach((b) => b.classList.add("down"));
}

function pointerDown(event) {
  const name = event.currentTarget.dataset.key;
  event.preventDefault();
  wake();
  if (current || queue.length) { tap(name, HOLD_MS); return; }
  press(name, performance.now(), Infinity);   // held until the pointer lets go
  event.currentTarget.setPointerCapture(event.pointerId);
}

function pointerUp(event) {
  const name = event.currentTarget.dataset.key;
  if (current && current.name === name && current.up === Infinity) {
    current.up = Math.max(performance.now(), current.start + HOLD_MS);
    current.free = current.up + GAP_MS;
  }
}

function keyDown(event) {
  const target = event.target;
  const onBoxKey = target && target.dataset && target.dataset.key;
  const onControl = !onBoxKey && target && target.closest && target.closest("button, input, summary, a, label");
  if (onControl) return;   // the page's own controls keep their keys
  if (onBoxKey && (event.key === "Enter" || event.key === " ")) {
    event.preventDefault();
    if (!event.repeat) { wake(); tap(target.dataset.key, HOLD_MS); }
    return;
  }
  const k = keyFor(event);
  if (!k) return;
  event.preventDefault();
  if (event.repeat) return;
  wake();
  tap(k[0], k[1]);
}

// --- record download and load ---------------------------------------------------------------

function download() {
  const text = board.record();
  if (!text) { say(window.W("web_no_record"), true); return; }
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = "matchstick-tycoon-game.txt";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  say(window.W("web_downloaded"), false);
}

async function loadRecord(event) {
  const file = event.target.files[0];
  event.target.value = "";
  if (!file) return;
  const bytes = new Uint8Array(await file.arrayBuffer());
  mp.FS.mkdirTree("/tmp");
  mp.FS.writeFile("/tmp/upload.txt", bytes);
  const error = board.load("/tmp/upload.txt", file.name);
  mp.FS.unlink("/tmp/upload.txt");
  if (error) { say(worded(JSON.parse(error)), true); return; }
  saveFlash();
  queue.length = 0;
  current = null;
  $("log").textContent = "";
  $("log").hidden = $("happened").hidden = true;
  show(board.boot(Math.floor(performance.now())));
  say(window.W("web_loaded", { name: file.name }), false);
}

// --- start ---------------------------------------------------------------------------------

function tick() {
  const now = performance.now();
  drive(now);
  if (current) {   // this step sees the key as it is now
    if (current.seen === null) current.seen = now;
    current.last = now;
  }
  show(board.step(Math.floor(now)));
  if (now >= markOff) { $("buzzer").classList.remove("on"); markOff = Infinity; }
  quietSteps++;
}

function findCells() {
  for (let i = 0; ; i++) {
    const group = $("d" + i);
    if (!group) break;
    const segs = [];
    for (let j = 0; j < 4; j++) {
      const row = [];
      for (let b = 0; b < 7; b++) row.push($("d" + i + "-" + j + SEGMENTS[b]));
      row.push($("d" + i + "-" + j + "p"));
      segs.push(row);
    }
    cells.push({ group: group, segs: segs, colon: [$("d" + i + "-c1"), $("d" + i + "-c2")],
      svg: group.closest("svg") });
  }
}

async function start() {
  findCells();
  mp = await loadMicroPython({ linebuffer: true, stdout: (l) => console.log(l), stderr: (l) => console.error(l) });
  const files = await (await fetch("files.json")).json();
  for (const path of files) {
    const response = await fetch(path);
    if (!response.ok) throw new Error("cannot load " + path);
    const target = "/" + path.slice("py/".length);
    mp.FS.mkdirTree(target.slice(0, target.lastIndexOf("/")));
    mp.FS.writeFile(target, new Uint8Array(await response.arrayBuffer()));
  }
  restoreFlash();
  mp.runPython("import sys, os\nsys.path.append('/page')\nos.chdir('/flash')");
  board = mp.pyimport("board");
  show(board.boot(Math.floor(performance.now())));
  document.querySelectorAll("[data-key]").forEach((b) => {
    b.addEventListener("pointerdown", pointerDown);
    b.addEventListener("pointerup", pointerUp);
    b.addEventListener("pointercancel", pointerUp);
    b.addEventListener("contextmenu", (e) => e.preventDefault());
  });
  document.addEventListener("keydown", keyDown);
  $("download").addEventListener("click", download);
  $("load").addEventListener("change", loadRecord);
  setInterval(tick, STEP_MS);
  // the displays' labels in the reader's language (host_tools.words' display names)
  document.querySelectorAll("#displays svg").forEach((svg, i) => {
    const label = svg.querySelector(":scope > text");
    const name = window.W("display_names")[i];
    if (label && name) label.textContent = (i + 1) + " " + name;
  });
  const items = window.W("setup_items");   // what each setup item is, in the reader's language
  document.querySelectorAll("#setup-items li").forEach((li) => {
    li.querySelector("span").textContent = items[li.dataset.item];
  });
  document.body.dataset.ready = "1";
  say(window.W("web_on"), false);   // the page's words, in the reader's language
}

// For tests and the curious: whether every key sent has been taken and let go.
window.matchbox = {
  quiet: () => board !== null && !current && queue.length === 0 && quietSteps >= 2,
  record: () => board.record(),
};

start().catch((err) => {
  say(window.W("web_failed", { error: String(err) }), true);
  console.error(err);
});
