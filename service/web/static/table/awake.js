/* The screen kept awake while the table page is open (ui.md, "Where the page lives").
 *
 * Where the browser has the Wake Lock API (a secure context: https or localhost) the page asks for
 * a screen lock, and again when it becomes visible. On a plain-HTTP LAN address the API is
 * missing, so the page falls back to NoSleep.js (vendored, service/web/static/VENDORED.md): a silent
 * looping video, started by the scorekeeper's first tap (browsers play media only after a
 * gesture). `#table[data-awake]` says which is in use: "wake-lock", "video", or "no" (neither
 * could be had yet). */
import {root} from "./state.js";

let wakeLock = null;
let noSleep = null;

function mark(how) { root.setAttribute("data-awake", how); }

function requestLock() {
  if (document.hidden) { return; }
  navigator.wakeLock.request("screen").then(function (lock) {
    wakeLock = lock;
    mark("wake-lock");
    lock.addEventListener("release", function () { wakeLock = null; mark("no"); });
  }, function () { wakeLock = null; mark("no"); });
}

function startVideo() {
  if (!noSleep || noSleep.isEnabled) { return; }
  noSleep.enable().then(function () { mark("video"); }, function () { mark("no"); });
}

export function keepAwake() {
  mark("no");
  if ("wakeLock" in navigator) {
    document.addEventListener("visibilitychange", function () { if (!document.hidden && !wakeLock) { requestLock(); } });
    requestLock();
    return;
  }
  if (typeof window.NoSleep !== "function") { return; }
  noSleep = new window.NoSleep();
  // the first tap anywhere on the page starts the silent video (and again after it was stopped)
  document.addEventListener("pointerdown", startVideo, true);
  document.addEventListener("keydown", startVideo, true);
}
