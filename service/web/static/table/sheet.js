/* The score sheet, from the game export's CSV. Imports state.js only; table.js runs `readSheet`
 * on state.js's "sheet" event. */
import {S, base, cardName, el, kind, playerNames, text} from "./state.js";

// ------------------------------------------------------------------ the score sheet

let sheetKey = null;

export function parseCsv(textBody) {
  var rows = [], row = [], field = "", quoted = false;
  for (var i = 0; i < textBody.length; i++) {
    var ch = textBody.charAt(i);
    if (quoted) {
      if (ch === '"' && textBody.charAt(i + 1) === '"') { field += '"'; i += 1; }
      else if (ch === '"') { quoted = false; }
      else { field += ch; }
    } else if (ch === '"') { quoted = true; }
    else if (ch === ",") { row.push(field); field = ""; }
    else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && textBody.charAt(i + 1) === "\n") { i += 1; }
      row.push(field); rows.push(row); row = []; field = "";
    } else { field += ch; }
  }
  if (field || row.length) { row.push(field); rows.push(row); }
  return rows;
}

export function readSheet(force) {
  if (!S.game) { return; }
  var s = S.game.state;
  var key = JSON.stringify([s.hand_number, s.phase, s.status, s.players.map(function (p) {
    return [p.lives_lost, p.score, p.chips, p.pushed_through, p.hand_size];
  })]);
  if (!force && key === sheetKey) { return; }
  sheetKey = key;
  fetch(base + "/export?format=csv", {headers: S.token ? {"Authorization": "Bearer " + S.token} : {}, cache: "no-store"})
    .then(function (response) { return response.ok ? response.text() : null; })
    .then(function (body) { if (body !== null) { renderSheet(parseCsv(body)); } }, function () { /* offline: keep the last sheet */ });
}

export function renderSheet(rows) {
  var box = el("sheet-body");
  box.innerHTML = "";
  if (rows.length < 2) { box.appendChild(text("p", "hint", "No hand played yet.")); return; }
  var head = rows[0];
  var body = rows.slice(1);
  var names2 = playerNames();
  // many players: on a phone each row is a grid of cells, each named (table.css)
  var table = text("table", "score-sheet" + (names2.length > 4 ? " many" : ""));
  var thead = text("thead"), tr = text("tr");
  var lead = kind === "fuji_flush" ? ["Turn", "Play"] : [kind === "toepen" ? "Hand" : "Round", "Dealer"];
  var skip = kind === "fuji_flush" ? 3 : 2;  // the CSV's leading columns (Fuji Flush: turn, player, card)
  for (var l = 0; l < lead.length; l++) { var th0 = text("th", null, lead[l]); th0.scope = "col"; tr.appendChild(th0); }
  for (var n = 0; n < names2.length; n++) { var th = text("th", "num", names2[n]); th.scope = "col"; tr.appendChild(th); }
  thead.appendChild(tr);
  table.appendChild(thead);
  var tbody = text("tbody");
  var shown = kind === "fuji_flush" ? body.slice(-8) : body;
  for (var r = 0; r < shown.length; r++) {
    var cells = shown[r];
    var row = text("tr");
    row.appendChild(text("th", null, cells[0] || "")).setAttribute("data-name", lead[0]);
    row.appendChild(text("td", null, kind === "fuji_flush" ? (cells[1] || "") + " " + cardName(cells[2] || "") : (cells[1] || "")))
      .setAttribute("data-name", lead[1]);
    for (var p = 0; p < names2.length; p++) {
      var change = cells[skip + 2 * p], total = cells[skip + 2 * p + 1];
      var td = text("td", "num");
      td.setAttribute("data-name", names2[p]);
      td.appendChild(text("strong", null, total));
      if (change !== undefined && change !== "" && change !== "0") {
        td.appendChild(text("span", "change", " (" + (Number(change) > 0 ? "+" : "") + change + ")"));
      }
      row.appendChild(td);
    }
    tbody.appendChild(row);
  }
  table.appendChild(tbody);
  var caption = text("caption", "hint", head.length ? (kind === "toepen" ? "Lives lost: total (this hand)" : kind === "fool" ? "Points: total (this round)"
    : kind === "stop_the_bus" ? "Chips: total (this round)" : "Cards held (in hand and in front): total (this turn), last turns") : "");
  table.insertBefore(caption, table.firstChild);
  var scroller = text("div", "sheet-scroll");
  scroller.appendChild(table);
  box.appendChild(scroller);
}
