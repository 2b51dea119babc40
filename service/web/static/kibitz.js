/* Kibitz pages: shared helpers (plain JavaScript, no build step).
 * - Kibitz.tokens: the game tokens this device keeps (localStorage), so a game created here
 *   can be recorded from here after reloads and browser restarts.
 * - Kibitz.clubKey: the club key this device keeps (localStorage), asked for once per device.
 * - Kibitz.newKey(): an Idempotency-Key from crypto.getRandomValues (works on plain HTTP,
 *   where crypto.randomUUID is missing).
 * - Kibitz.api(): one fetch of the documented JSON API; resolves to {status, body, etag}
 *   or rejects with {unreachable: true} when there was no answer at all.
 * - Kibitz.clocks(root): every <time data-clock> (written by the server in club time,
 *   service/web/pages/clock.py) written again in this device's own time zone, in the same shape
 *   ("2026-12-05 19:42 EST", "19:42:05", "2026-12-05"); run on load and on every piece of page
 *   added later (the game page's live board, the replay's steps).
 */
(function () {
  "use strict";
  var PREFIX = "kibitz.token.";

  function storage() {
    try { return window.localStorage; } catch (e) { return null; }
  }

  var tokens = {
    get: function (gameId) {
      var s = storage();
      return s ? s.getItem(PREFIX + gameId) : null;
    },
    set: function (gameId, token) {
      var s = storage();
      if (s) { s.setItem(PREFIX + gameId, token); }
    },
    remove: function (gameId) {
      var s = storage();
      if (s) { s.removeItem(PREFIX + gameId); }
    },
    /* Every token this device keeps (the night's download sends them: those games in full). */
    all: function () {
      var s = storage();
      var out = [];
      if (!s) { return out; }
      for (var i = 0; i < s.length; i++) {
        var key = s.key(i);
        if (key && key.indexOf(PREFIX) === 0 && s.getItem(key)) { out.push(s.getItem(key)); }
      }
      return out;
    },
    /* The token from the URL fragment (#token=…), stored on the device and removed from the
     * address bar so it is not bookmarked or shared by accident. */
    adoptFromFragment: function (gameId) {
      var match = /(?:^#|&)token=([^&]+)/.exec(window.location.hash || "");
      if (!match) { return null; }
      var token = decodeURIComponent(match[1]);
      tokens.set(gameId, token);
      if (window.history && window.history.replaceState) {
        window.history.replaceState(null, "", window.location.pathname + window.location.search);
      }
      return token;
    }
  };

  /* The club key this device keeps (localStorage), sent as the bearer token where the pages
   * create a game (POST /games) on a server that has a club key; asked for once per device. */
  var CLUB_KEY = "kibitz.club_key";
  var clubKey = {
    get: function () {
      var s = storage();
      return s ? s.getItem(CLUB_KEY) : null;
    },
    set: function (key) {
      var s = storage();
      if (s) { s.setItem(CLUB_KEY, key); }
    },
    remove: function () {
      var s = storage();
      if (s) { s.removeItem(CLUB_KEY); }
    },
    /* True for the service's answer refusing the club key (401 club_key_required, 403 club_key_invalid). */
    refused: function (answer) {
      var code = answer && answer.body && answer.body.code;
      return code === "club_key_required" || code === "club_key_invalid";
    }
  };

  function newKey() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    var out = "";
    for (var i = 0; i < bytes.length; i++) {
      out += (bytes[i] + 0x100).toString(16).slice(1);
    }
    return out;
  }

  function nowIso() {
    return new Date().toISOString();
  }

  /* options: {body, token, ifMatch, key, timeoutMs} */
  function api(method, path, options) {
    options = options || {};
    var headers = {"Accept": "application/json"};
    if (options.token) { headers["Authorization"] = "Bearer " + options.token; }
    if (options.ifMatch !== undefined && options.ifMatch !== null) { headers["If-Match"] = '"' + options.ifMatch + '"'; }
    if (options.key) { headers["Idempotency-Key"] = options.key; }
    var init = {method: method, headers: headers, cache: "no-store"};
    if (options.body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(options.body);
    }
    var controller = window.AbortController ? new AbortController() : null;
    var timer = null;
    if (controller) {
      init.signal = controller.signal;
      timer = setTimeout(function () { controller.abort(); }, options.timeoutMs || 8000);
    }
    return fetch(path, init).then(function (response) {
      if (timer) { clearTimeout(timer); }
      var etag = response.headers.get("ETag");
      return response.text().then(function (text) {
        var body = null;
        try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
        return {status: response.status, body: body, etag: etag};
      });
    }, function (error) {
      if (timer) { clearTimeout(timer); }
      throw {unreachable: true, error: error};
    });
  }

  /* ------------------------------------------------------------------ times in the device's zone */

  function two(n) { return (n < 10 ? "0" : "") + n; }

  var deviceZone = null;
  try { deviceZone = new Intl.DateTimeFormat().resolvedOptions().timeZone || null; } catch (e) { deviceZone = null; }

  /* A Date's parts in this device's zone (the Date's own local fields are that zone's). */
  function written(date, style) {
    var day = date.getFullYear() + "-" + two(date.getMonth() + 1) + "-" + two(date.getDate());
    var minute = two(date.getHours()) + ":" + two(date.getMinutes());
    if (style === "date") { return day; }
    if (style === "second") { return minute + ":" + two(date.getSeconds()); }
    return day + " " + minute;
  }

  /* The device's zone's short name at that date ("EST", "CET"; "UTC+13" where the browser has only an offset). */
  function zoneName(date) {
    try {
      var parts = new Intl.DateTimeFormat(undefined, {timeZoneName: "short"}).formatToParts(date);
      for (var i = 0; i < parts.length; i++) {
        if (parts[i].type === "timeZoneName") { return parts[i].value.replace(/^GMT(?=[+-]|$)/, "UTC"); }
      }
    } catch (e) { /* no Intl: the tooltip names the zone */ }
    return "";
  }

  function zoneWords(date) {
    var offset = -date.getTimezoneOffset();
    var sign = offset >= 0 ? "+" : "-";
    offset = Math.abs(offset);
    return (deviceZone || "this device's time") + ", UTC" + sign + two(Math.floor(offset / 60)) + ":" + two(offset % 60);
  }

  function clocks(root) {
    if (!deviceZone || !root || !root.querySelectorAll) { return; }
    var found = root.matches && root.matches("time[data-clock]") ? [root] : root.querySelectorAll("time[data-clock]");
    for (var i = 0; i < found.length; i++) {
      var box = found[i];
      if (box.hasAttribute("data-device")) { continue; }
      if (box.getAttribute("data-zone") === deviceZone) { box.setAttribute("data-device", ""); continue; }  // the server wrote it in this zone
      var date = new Date(box.getAttribute("datetime"));
      if (isNaN(date.getTime())) { continue; }
      var style = box.getAttribute("data-clock");
      var text = written(date, style);
      if (style === "minute" || style === "second") { var zone = zoneName(date); if (zone) { text += " " + zone; } }  // "19:42 EST", "19:42:05 EST"
      if (box.textContent !== text) { box.textContent = text; }
      box.setAttribute("title", zoneWords(date));
      box.setAttribute("data-zone", deviceZone);
      box.setAttribute("data-device", "");
    }
    /* an <option> holds text only: its time leads it ("2026-12-05 19:42 · Toepen …"), same length in any zone */
    var options = root.querySelectorAll("option[data-datetime][data-clock]");
    for (var k = 0; k < options.length; k++) {
      var option = options[k];
      var when = new Date(option.getAttribute("data-datetime"));
      if (isNaN(when.getTime()) || option.hasAttribute("data-device")) { continue; }
      var shown = written(when, option.getAttribute("data-clock"));
      option.textContent = shown + option.textContent.slice(shown.length);
      option.setAttribute("data-device", "");
    }
  }

  clocks(document);
  if (window.MutationObserver) {
    new MutationObserver(function (changes) {
      for (var i = 0; i < changes.length; i++) {
        for (var j = 0; j < changes[i].addedNodes.length; j++) {
          var node = changes[i].addedNodes[j];
          if (node.nodeType === 1) { clocks(node); }
        }
      }
    }).observe(document.documentElement, {childList: true, subtree: true});
  }

  /* POST /games with `body` (a page's new game: the new-game form, Play again), sent with the club
   * key `typed` in the page's field or else the one this device keeps. On 201 the typed key is
   * kept, the game's token stored and the table page opened; otherwise a refused club key is
   * forgotten and `askKey` called (the page shows its key field again). Resolves with the
   * service's answer when it was not a 201; rejects when the service cannot be reached. */
  function startGame(body, typed, askKey) {
    return api("POST", "/games", {body: body, token: typed || clubKey.get()}).then(function (answer) {
      if (answer.status === 201) {
        if (typed) { clubKey.set(typed); }
        tokens.set(answer.body.id, answer.body.token);
        window.location.assign("/table/" + encodeURIComponent(answer.body.id));
        return null;
      }
      if (clubKey.refused(answer)) {  /* a key kept here that no longer works is forgotten: ask again */
        clubKey.remove();
        askKey();
      }
      return answer;
    });
  }

  window.Kibitz = {tokens: tokens, clubKey: clubKey, newKey: newKey, nowIso: nowIso, api: api, clocks: clocks,
                   startGame: startGame};
})();
