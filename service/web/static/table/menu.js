/* The menu: note, ruling, abandon, share scorekeeping. */
import {write} from "./queue.js";
import {K, S, UNITS, el, entries, gameId, hasBookkeeping, kind, playerNames, showTable, text} from "./state.js";
import {openFix, showEarlier} from "./fix.js";


export function showPanel(id) {
  var panels = ["form-note", "form-ruling", "form-abandon", "share", "fix"];
  var wasOpen = panels.some(function (p) { return !el(p).hidden; });
  for (var i = 0; i < panels.length; i++) { el(panels[i]).hidden = panels[i] !== id; }
  document.body.classList.toggle("sheet-open", id === "fix");
  closeMenu();
  if (!id && wasOpen) { showTable(); }
  if (id) {
    var first = el(id).querySelector("textarea, input, select, button");
    if (first) { first.focus(); }
  }
}

export function closeMenu() { el("menu").hidden = true; el("menu-button").setAttribute("aria-expanded", "false"); }

export function fillPlayerSelect(select, optional) {
  select.innerHTML = "";
  if (optional) { var none = text("option", null, "nobody in particular"); none.value = ""; select.appendChild(none); }
  var list = playerNames();
  for (var i = 0; i < list.length; i++) { var o = text("option", null, list[i]); o.value = list[i]; select.appendChild(o); }
}

export function share() {
  showPanel("share");
  el("share-qr").textContent = "…";
  K.api("POST", "/table/" + encodeURIComponent(gameId) + "/share", {token: S.token, body: {}}).then(function (answer) {
    if (answer.status !== 200) { el("share-qr").textContent = (answer.body && answer.body.detail) || "No link."; return; }
    el("share-qr").innerHTML = answer.body.svg;
    var link = el("share-link");
    link.href = answer.body.link;
    link.textContent = answer.body.link;
    var warn = el("share-warning");  /* the server says when other devices cannot reach the link */
    warn.textContent = answer.body.warning || "";
    warn.hidden = !answer.body.warning;
  }, function () { el("share-qr").textContent = "The service cannot be reached, so the link cannot be drawn now."; });
}

export function copyLink() {
  var link = el("share-link").href;
  if (navigator.clipboard && window.isSecureContext) { navigator.clipboard.writeText(link); return; }
  var range = document.createRange();
  range.selectNodeContents(el("share-link"));
  var selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  try { document.execCommand("copy"); } catch (e) { /* the link stays selected for a manual copy */ }
}

export function renderMenu() {
  var known = hasBookkeeping();
  el("menu-note").hidden = known && !entries("note").length;
  el("menu-ruling").hidden = kind === "fuji_flush" || (known && !entries("adjust").length) || (!known && S.game.state.status !== "in_progress");
  // abandon: offered while the game is in progress (the service refuses it once the game is over)
  el("menu-abandon").hidden = !entries("abandon").length && S.game.state.status !== "in_progress";
  var hand = S.game.state.hand_number || S.game.state.round_number || 0;
  el("menu-fix").hidden = !hand;
  var audit = el("menu-audit");
  audit.hidden = !hand;
  audit.href = "/watch/" + encodeURIComponent(gameId) + "/hands/" + hand;
  audit.textContent = (kind === "toepen" ? "Audit of hand " : "Audit of round ") + hand;
  var tokenOnly = ["menu-note", "menu-ruling", "menu-abandon", "menu-fix", "menu-share"];
  for (var i = 0; i < tokenOnly.length; i++) { if (!S.token) { el(tokenOnly[i]).hidden = true; } }
}


export function wireMenu() {
  el("menu-button").addEventListener("click", function () {
    var menu = el("menu");
    menu.hidden = !menu.hidden;
    el("menu-button").setAttribute("aria-expanded", menu.hidden ? "false" : "true");
  });
  el("menu-note").addEventListener("click", function () { fillPlayerSelect(el("note-player"), true); showPanel("form-note"); });
  el("menu-ruling").addEventListener("click", function () {
    fillPlayerSelect(el("ruling-player"), false);
    el("ruling-unit").textContent = UNITS[kind] || "";
    showPanel("form-ruling");
  });
  el("menu-abandon").addEventListener("click", function () { showPanel("form-abandon"); });
  el("menu-share").addEventListener("click", share);
  el("menu-fix").addEventListener("click", function () { showPanel("fix"); openFix(function () { showPanel(null); }); });
  el("fix-earlier").addEventListener("click", showEarlier);
  el("share-copy").addEventListener("click", copyLink);
  var closers = document.querySelectorAll("[data-close]");
  for (var c = 0; c < closers.length; c++) { closers[c].addEventListener("click", function () { showPanel(null); }); }
  /* Say in the changes line that a note (a ruling) was saved, or waits on this device. */
  function saved(outcome, what) {
    el("changes").textContent = outcome === "stored" ? what + " saved." :
      what + " kept on this device: it is saved when the service answers.";
  }
  el("form-note").addEventListener("submit", function (event) {
    event.preventDefault();
    var body = {type: "note", text: el("note-text").value};
    if (el("note-player").value) { body.player = el("note-player").value; }
    write("events", body, "the note").then(function (outcome) {
      if (outcome === "refused") { return; }
      el("note-text").value = "";
      showPanel(null);
      saved(outcome, "Note");
    });
  });
  el("form-ruling").addEventListener("submit", function (event) {
    event.preventDefault();
    var amount = Number(el("ruling-amount").value);
    var body = {type: "adjust", player: el("ruling-player").value, amount: Number.isInteger(amount) ? amount : el("ruling-amount").value,
                reason: el("ruling-reason").value};
    write("events", body, "the ruling for " + body.player).then(function (outcome) {
      if (outcome !== "refused") { el("ruling-reason").value = ""; el("ruling-amount").value = ""; showPanel(null); saved(outcome, "Ruling"); }
    });
  });
  el("form-abandon").addEventListener("submit", function (event) {
    event.preventDefault();
    write("events", {type: "abandon", reason: el("abandon-reason").value}, "abandoning the game").then(function (outcome) {
      if (outcome !== "refused") { showPanel(null); }
    });
  });
}
