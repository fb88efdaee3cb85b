// The emulated Pico's Node side: rp2040js running the MicroPython UF2, as a thin bus.
//
//   node harness.js UF2 BOOTROM PINMAP [FS_OFFSET FS_BLOCKS]
//
// Python (host_tools/virtual/emulated_pico.py) owns the models; this file only moves bytes
// and resolves nets. It reads one command a line on stdin and answers with lines on stdout
// that start with "@" (the protocol is described in emulated_pico.py's docstring):
//   B                 power on a fresh chip with the current flash bytes
//   O                 power off (a power cut: the chip stops where it is)
//   t MS              run MS emulated milliseconds, then answer "@i MS_SINCE_POWER_ON FLASH_OPS"
//   k NAME 0|1        release / press a key (nets resolved on every GPIO change)
//                     (answers: @w AA HEX US an I2C write at US emulated microseconds, @m AA RR N
//                     US a read of N bytes of a display's RAM from RR, @o HEX US
//                     serial bytes, @f e|p OFFSET COUNT a flash op, @b MS HZ DUTY the buzzer,
//                     @K US the first keypad scan since power-on: a row driven low)
//   d AA,BB           the display addresses on the bus (hex); u AA / p AA unplug / replug
//   c N               cut the power before the (N+1)-th flash erase/program from now (-1: never)
//   s HEX             bytes into the USB CDC serial (the REPL)
//   L PATH / S PATH   load / save the filesystem region from / to PATH (FS_OFFSET in hex and
//                     FS_BLOCKS of 4096 bytes; default 0xA0000 and 352, the Pico's; the Pico
//                     W's is 0x12C000 and 212)
//   U PATH            write a UF2's blocks into the flash as the boot ROM does when the file
//                     is dragged onto a Pico in BOOTSEL mode (each 4 KB sector it touches is
//                     erased first; the rest of the flash keeps its bytes)
//   R OFF LEN PATH    save LEN bytes of flash from offset OFF (hex) to PATH (answers "@R")
//   D                 one line about the core (PC, wait state, interrupts), for debugging
//   q                 quit
// Hand-written: rp2040js has no flash controller, pull-ups, nets or I2C slave on the pins,
// and no existing package drives it from another process.
'use strict';
const fs = require('fs');
const readline = require('readline');
const { RP2040, USBCDC, GPIOPinState } = require('rp2040js');

const [uf2Path, bootromPath, pinmapPath, fsOffset, fsBlocks] = process.argv.slice(2);
const FS_OFFSET = fsOffset ? parseInt(fsOffset, 16) : 0xa0000;
const FS_SIZE = (fsBlocks ? Number(fsBlocks) : 352) * 4096;
const NS_PER_CYCLE = 8; // 125 MHz
const MAX_SLEEP_NS = 1e6;

const pinmap = JSON.parse(fs.readFileSync(pinmapPath, 'utf8'));
const SDA = pinmap.i2c.sda;
const SCL = pinmap.i2c.scl;
const ROWS = pinmap.keypad.rows;
const COLS = pinmap.keypad.cols;
const BUTTONS = {};
for (const b of pinmap.buttons) BUTTONS[b.name] = b.gpio;
const MATRIX = {}; // key name -> [row index, col index]
pinmap.keypad.legend.forEach((row, r) => {
  for (let c = 0; c < row.length; c++) MATRIX[row[c]] = [r, c];
});
const BUZZER = pinmap.buzzer ? pinmap.buzzer.gpio : null;

const out = [];
function send(line) {
  out.push(line);
  if (out.length > 256) flush();
}
function flush() {
  if (out.length) {
    process.stdout.write(out.join('\n') + '\n');
    out.length = 0;
  }
}
const hex = (bytes) => Buffer.from(bytes).toString('hex');
const hex2 = (n) => n.toString(16).padStart(2, '0');

// --- the images -------------------------------------------------------------------------

function uf2Blocks(data) {
  const blocks = [];
  for (let i = 0; i + 512 <= data.length; i += 512) {
    const magic0 = data.readUInt32LE(i);
    const magic1 = data.readUInt32LE(i + 4);
    if (magic0 !== 0x0a324655 || magic1 !== 0x9e5d5157) throw new Error('not a UF2 block at ' + i);
    const addr = data.readUInt32LE(i + 12);
    const size = data.readUInt32LE(i + 16);
    blocks.push([addr - 0x10000000, data.subarray(i + 32, i + 32 + size)]);
  }
  return blocks;
}
const firmware = uf2Blocks(fs.readFileSync(uf2Path));
const romBytes = fs.readFileSync(bootromPath);
const bootrom = new Uint32Array(romBytes.buffer, romBytes.byteOffset, romBytes.length >> 2).slice();
const romView = new DataView(bootrom.buffer);
const romFuncs = {};
for (let p = romView.getUint16(0x14, true); ; p += 4) {
  const code = romView.getUint16(p, true);
  if (!code) break;
  romFuncs[code] = romView.getUint16(p + 2, true) & ~1;
}
const ERASE = romFuncs[0x4552]; // 'RE' flash_range_erase(offset, count, block_size, cmd)
const PROGRAM = romFuncs[0x5052]; // 'RP' flash_range_program(offset, data, count)
romView.setUint16(ERASE, 0xbe00, true); // BKPT: done below in JS
romView.setUint16(PROGRAM, 0xbe01, true);

// The flash that outlives every chip: firmware + filesystem.
const flash = new Uint8Array(16 * 1024 * 1024).fill(0xff);
for (const [offset, payload] of firmware) flash.set(payload, offset);

// --- board state kept across power cycles ------------------------------------------------

const pressed = new Set();
let devices = new Set(pinmap.displays.map((d) => d.address));
const unplugged = new Set();
let flashOps = 0; // erases + programs since the harness started
let cutBudget = -1; // flash ops left before a power cut (-1: none)
let mcu = null;
let cdc = null;
let halted = null; // why the chip stopped: 'cut', 'off'
let watchdogFired = false;

// What each display's chip holds, so that a read of its RAM gets an answer at once (the
// Python side keeps the model of record; this mirror follows the same writes and is blanked
// where the chip powers up: a new chip, a replug, a watchdog reset).
let chips = new Map();
function chipRam(addr) {
  if (!chips.has(addr)) chips.set(addr, { ram: new Uint8Array(16), pointer: 0, writing: false });
  return chips.get(addr);
}

function acks(addr) {
  return devices.has(addr) && !unplugged.has(addr);
}

// --- nets: keypad, buttons, and the I2C lines when MicroPython bit-bangs them ------------

function driven(pin) {
  const v = pin.value;
  if (v === GPIOPinState.Low) return 0;
  if (v === GPIOPinState.High) return 1;
  return -1;
}
function pulledUp(pin) {
  return pin.value === GPIOPinState.InputPullUp || pin.value === GPIOPinState.InputBusKeeper;
}

let resolving = false;
let scanned = false; // a keypad row was driven low since power-on (the firmware reads keys)
function resolveKeys() {
  // Union rows and columns joined by pressed keys; a net is low if a member drives low or a
  // pressed button grounds it, else high if a member drives high or pulls up, else floating
  // (reads low, as a pin with nothing holding it might).
  const gpio = mcu.gpio;
  if (!scanned && ROWS.some((g) => driven(gpio[g]) === 0)) {
    scanned = true;
    send('@K ' + Math.floor(mcu.clock.nanos / 1000));
  }
  const nets = new Map(); // gpio -> representative
  const find = (g) => {
    while (nets.has(g) && nets.get(g) !== g) g = nets.get(g);
    return g;
  };
  for (const g of ROWS.concat(COLS)) nets.set(g, g);
  for (const name of pressed) {
    if (MATRIX[name]) {
      const [r, c] = MATRIX[name];
      nets.set(find(ROWS[r]), find(COLS[c]));
    }
  }
  const level = new Map();
  for (const g of ROWS.concat(COLS)) {
    const rep = find(g);
    const d = driven(gpio[g]);
    const cur = level.has(rep) ? level.get(rep) : -1;
    let next = cur;
    if (d === 0) next = 0;
    else if (cur !== 0 && (d === 1 || pulledUp(gpio[g]))) next = 1;
    level.set(rep, next);
  }
  for (const g of ROWS.concat(COLS)) {
    const l = level.get(find(g));
    setInput(gpio[g], l === 1);
  }
  for (const name in BUTTONS) {
    const pin = gpio[BUTTONS[name]];
    const d = driven(pin);
    if (pressed.has(name)) setInput(pin, false);
    else setInput(pin, d === 1 || (d !== 0 && pulledUp(pin)));
  }
}
function setInput(pin, value) {
  if (pin.rawInputValue !== value) pin.setInputValue(value);
}

// A slave on the SDA/SCL pins, for the transfers MicroPython bit-bangs (i2c.scan() and other
// zero-length writes): decode START, the address byte, ACK it when a display answers there.
const bb = { sda: 1, scl: 1, slaveLow: false, state: 'idle', bits: 0, byte: 0, addr: 0, data: [] };
function resolveI2C() {
  const gpio = mcu.gpio;
  const sdaPin = gpio[SDA];
  const sclPin = gpio[SCL];
  const sio = sdaPin.functionSelect === 5 && sclPin.functionSelect === 5;
  const sda = sio && (driven(sdaPin) === 0 || bb.slaveLow) ? 0 : 1;
  const scl = sio && driven(sclPin) === 0 ? 0 : 1;
  if (sio) {
    if (bb.scl && scl && bb.sda && !sda) {
      bb.state = 'addr'; bb.bits = 0; bb.byte = 0; bb.data = [];
    } else if (bb.scl && scl && !bb.sda && sda) {
      if (bb.state !== 'idle' && bb.acked) send('@p ' + hex2(bb.addr) + ' ' + hex(bb.data));
      bb.state = 'idle'; bb.slaveLow = false; bb.acked = false;
    } else if (!bb.scl && scl) {
      if (bb.state === 'addr' || bb.state === 'data') {
        bb.byte = (bb.byte << 1) | sda; bb.bits++;
      }
    } else if (bb.scl && !scl) {
      if ((bb.state === 'addr' || bb.state === 'data') && bb.bits === 8) {
        let ack = false;
        if (bb.state === 'addr') {
          bb.addr = bb.byte >> 1;
          ack = !(bb.byte & 1) && acks(bb.addr);
          bb.acked = ack;
          if (!ack) send('@n ' + hex2(bb.addr));
        } else {
          bb.data.push(bb.byte);
          ack = true;
        }
        bb.slaveLow = ack;
        bb.state = ack ? 'ack' : 'nack';
      } else if (bb.state === 'ack') {
        bb.slaveLow = false; bb.state = 'data'; bb.bits = 0; bb.byte = 0;
      }
    }
  }
  bb.sda = sda; bb.scl = scl;
  const sdaLevel = sio && (driven(sdaPin) === 0 || bb.slaveLow) ? false : true;
  setInput(sdaPin, sdaLevel);
  setInput(sclPin, scl === 1);
}

function resolve() {
  if (resolving || !mcu) return;
  resolving = true;
  try {
    resolveKeys();
    resolveI2C();
  } finally {
    resolving = false;
  }
}

// --- a fresh chip ------------------------------------------------------------------------

let buzz = '';
function watchBuzzer() {
  if (BUZZER === null) return;
  const pin = mcu.gpio[BUZZER];
  const ch = mcu.pwm.channels[(BUZZER >> 1) & 7];
  let hz = 0;
  let duty = 0;
  if (pin.functionSelect === 4 && ch.csr & 1) {
    const cc = BUZZER & 1 ? ch.cc >>> 16 : ch.cc & 0xffff;
    const div = (ch.div >> 4 & 0xff) + (ch.div & 0xf) / 16 || 256;
    if (cc > 0) {
      hz = Math.round(mcu.clkSys / ((ch.top + 1) * div));
      duty = Math.round((65535 * Math.min(cc, ch.top + 1)) / (ch.top + 1));
    }
  }
  const now = hz + ' ' + duty;
  if (now !== buzz) {
    buzz = now;
    send('@b ' + Math.floor(mcu.clock.nanos / 1e6) + ' ' + now);
  }
}

function powerOn() {
  chips = new Map();
  mcu = new RP2040();
  mcu.loadBootrom(bootrom);
  mcu.flash.set(flash);
  // rp2040js 1.4.1 only logs SEV; on the chip it sets the event register so that the next
  // WFE falls through (the SDK's sleeps rely on it). Without this a sleep can miss its wake-up.
  const core = mcu.core;
  mcu.logger = {
    debug() {},
    info(tag, msg) { if (msg === 'SEV') core.eventRegistered = true; },
    warn() {},
    error(tag, msg) { send('@e ' + tag + ': ' + msg); },
  };
  mcu.core.PC = 0x10000000;
  mcu.onBreak = onBreak;
  halted = null;
  watchdogFired = false;
  scanned = false;
  bb.sda = 1; bb.scl = 1; bb.slaveLow = false; bb.state = 'idle';
  const wd = mcu.peripherals[0x40058];
  wd.onWatchdogTrigger = () => {
    wd.enable = false; wd.timer.enable = false; wd.alarm.enable = false; // or it re-fires forever
    watchdogFired = true;
  };
  const i2c = mcu.i2c[pinmap.i2c.id];
  let cur = null;
  let pointerSet = null; // a write of only a RAM address, then a repeated start: a read follows
  i2c.onStart = (restart) => {
    pointerSet = restart && cur && !cur.read && cur.data.length === 1 ? cur : null;
    if (pointerSet) cur = null;
    i2c.completeStart();
  };
  i2c.onConnect = (addr, mode) => {
    const ack = acks(addr);
    if (!ack) cur = null;
    else if (mode === 0) cur = { addr, data: [] };
    else cur = { addr, read: true, reg: chipRam(addr).pointer, n: 0 };
    if (!ack) send('@n ' + hex2(addr));
    i2c.completeConnect(ack);
  };
  i2c.onWriteByte = (b) => {
    if (cur) {
      const chip = chipRam(cur.addr);
      if (cur.data.length === 0) chip.writing = b <= 0x0f;
      if (chip.writing && cur.data.length === 0) chip.pointer = b;
      else if (chip.writing) { chip.ram[chip.pointer] = b; chip.pointer = (chip.pointer + 1) & 15; }
      cur.data.push(b);
    }
    i2c.completeWrite(!!cur);
  };
  i2c.onReadByte = () => {
    if (!cur || !cur.read) return i2c.completeRead(0xff);
    const chip = chipRam(cur.addr);
    const b = chip.ram[chip.pointer];
    chip.pointer = (chip.pointer + 1) & 15;
    cur.n++;
    i2c.completeRead(b);
  };
  i2c.onStop = () => {
    const us = Math.floor(mcu.clock.nanos / 1000);
    if (cur && cur.read) {
      // RR is '--' for a read with no pointer write before it (no register byte on the bus)
      send('@m ' + hex2(cur.addr) + ' ' + (pointerSet ? hex2(cur.reg) : '--') + ' ' + cur.n + ' ' + us);
    } else if (cur) send('@w ' + hex2(cur.addr) + ' ' + hex(cur.data) + ' ' + us);
    cur = null;
    pointerSet = null;
    i2c.completeStop();
  };
  const pins = ROWS.concat(COLS, Object.values(BUTTONS), [SDA, SCL]);
  for (const g of pins) mcu.gpio[g].addListener(resolve);
  if (BUZZER !== null) {
    const pwmWrite = mcu.pwm.writeUint32.bind(mcu.pwm);
    mcu.pwm.writeUint32 = (offset, value) => { pwmWrite(offset, value); watchBuzzer(); };
    mcu.gpio[BUZZER].addListener(() => {});
  }
  buzz = '';
  cdc = new USBCDC(mcu.usbCtrl);
  cdc.onSerialData = (bytes) => send('@o ' + hex(bytes) + ' ' + Math.floor(mcu.clock.nanos / 1000));
  // rp2040js answers a read of the OUT endpoint at once, with zero bytes when nothing is
  // typed: tinyusb re-arms at once and the chip never sleeps. Hold the read until bytes come.
  const usb = mcu.usbCtrl;
  usbPending = null;
  usb.onEndpointRead = (endpoint, size) => {
    if (endpoint !== cdc.outEndpoint) return;
    usbPending = [endpoint, size];
    serveUSB();
  };
  resolve();
}

let usbPending = null;
function serveUSB() {
  if (!usbPending || cdc.txFIFO.empty) return;
  const [endpoint, size] = usbPending;
  usbPending = null;
  const buffer = new Uint8Array(Math.min(size, cdc.txFIFO.itemCount));
  for (let i = 0; i < buffer.length; i++) buffer[i] = cdc.txFIFO.pull();
  mcu.usbCtrl.endpointReadDone(endpoint, buffer);
}

function onBreak(code) {
  const core = mcu.core;
  const at = (core.PC - 2) & ~1;
  if (at !== ERASE && at !== PROGRAM) {
    halted = 'break';
    send('@h break ' + code + ' at ' + at.toString(16));
    return;
  }
  if (cutBudget === 0) {
    cutBudget = -1;
    halted = 'cut';
    send('@x ' + flashOps);
    return;
  }
  const r = core.registers;
  if (at === ERASE) {
    const off = r[0] >>> 0;
    const count = r[1] >>> 0;
    flash.fill(0xff, off, off + count);
    mcu.flash.fill(0xff, off, off + count);
    send('@f e ' + off.toString(16) + ' ' + count);
  } else {
    const off = r[0] >>> 0;
    const src = r[1] >>> 0;
    const count = r[2] >>> 0;
    for (let i = 0; i < count; i++) {
      const b = flash[off + i] & mcu.readUint8(src + i);
      flash[off + i] = b;
      mcu.flash[off + i] = b;
    }
    send('@f p ' + off.toString(16) + ' ' + count);
  }
  flashOps++;
  if (cutBudget > 0) cutBudget--;
  core.PC = core.LR & ~1;
}

let slept = 0; // ns the core has waited without a break
function run(ms) {
  let left = ms * 1e6;
  while (left > 0 && mcu && !halted) {
    const clock = mcu.clock;
    const core = mcu.core;
    if (core.waiting) {
      // A WFE/WFI may end early on a chip (a spurious wake-up; code around it re-checks).
      // rp2040js misses some wake-up events of the RP2040 (SEV from the other core or an
      // alarm raced by the SDK), which would leave a sleep hanging: wake up after 1 ms anyway.
      let dt = clock.nanosToNextAlarm;
      if (dt <= 0 || dt > MAX_SLEEP_NS - slept) dt = MAX_SLEEP_NS - slept;
      if (dt > left) dt = left;
      clock.tick(dt);
      left -= dt;
      slept += dt;
      if (!core.waiting || slept >= MAX_SLEEP_NS) {
        core.waiting = false;
        slept = 0;
      }
    } else {
      slept = 0;
      let n = 0;
      // a slice of instructions at a time; breakpoints and waits end it early
      while (n < 2000 && !core.waiting && !halted) {
        n += core.executeInstruction();
      }
      clock.tick(n * NS_PER_CYCLE);
      left -= n * NS_PER_CYCLE;
    }
    if (watchdogFired) {
      send('@W ' + Math.floor(mcu.clock.nanos / 1e6));
      powerOn();
    }
  }
}

// --- commands ----------------------------------------------------------------------------

function command(line) {
  const [op, ...args] = line.trim().split(/\s+/);
  switch (op) {
    case 'B':
      powerOn();
      break;
    case 'O':
      mcu = null;
      halted = 'off';
      break;
    case 't':
      if (mcu && !halted) run(Number(args[0]));
      send('@i ' + (mcu ? Math.floor(mcu.clock.nanos / 1e6) : -1) + ' ' + flashOps + ' ' + (halted || 'on'));
      break;
    case 'k':
      if (args[1] === '1') pressed.add(args[0]);
      else pressed.delete(args[0]);
      resolve();
      break;
    case 'd':
      devices = new Set((args[0] || '').split(',').filter(Boolean).map((a) => parseInt(a, 16)));
      break;
    case 'u':
      unplugged.add(parseInt(args[0], 16));
      break;
    case 'p':
      unplugged.delete(parseInt(args[0], 16));
      chips.delete(parseInt(args[0], 16));
      break;
    case 'c':
      cutBudget = Number(args[0]);
      break;
    case 's':
      if (cdc) {
        for (const b of Buffer.from(args[0], 'hex')) cdc.sendSerialByte(b);
        serveUSB();
      }
      break;
    case 'L': {
      const image = fs.readFileSync(args.join(' '));
      if (image.length !== FS_SIZE) throw new Error('filesystem image must be ' + FS_SIZE + ' bytes');
      flash.set(image, FS_OFFSET);
      break;
    }
    case 'S':
      fs.writeFileSync(args.join(' '), flash.subarray(FS_OFFSET, FS_OFFSET + FS_SIZE));
      send('@S');
      break;
    case 'U': {
      const blocks = uf2Blocks(fs.readFileSync(args.join(' ')));
      const erased = new Set();
      for (const [offset] of blocks) {
        const sector = offset & ~0xfff;
        if (!erased.has(sector)) {
          erased.add(sector);
          flash.fill(0xff, sector, sector + 0x1000);
        }
      }
      for (const [offset, payload] of blocks) flash.set(payload, offset);
      break;
    }
    case 'R': {
      const off = parseInt(args[0], 16);
      const len = parseInt(args[1], 10);
      fs.writeFileSync(args.slice(2).join(' '), flash.subarray(off, off + len));
      send('@R');
      break;
    }
    case 'D': {
      const c = mcu.core;
      send('@D pc=' + (c.PC >>> 0).toString(16) + ' lr=' + (c.LR >>> 0).toString(16) + ' waiting=' + c.waiting + ' PM=' + c.PM + ' ev=' + c.eventRegistered + ' pend=' + (c.pendingInterrupts >>> 0).toString(16) + ' en=' + (c.enabledInterrupts >>> 0).toString(16) + ' ipsr=' + c.IPSR + ' next=' + mcu.clock.nanosToNextAlarm);
      break;
    }
    case 'q':
      flush();
      process.exit(0);
      break;
    default:
      send('@e unknown command ' + JSON.stringify(line));
  }
  flush();
}

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  try {
    command(line);
  } catch (err) {
    send('@e ' + String(err && err.message ? err.message : err).replace(/\n/g, ' '));
    flush();
  }
});
rl.on('close', () => {
  flush();
  process.exit(0);
});
send('@ready');
flush();
