/* The device keeps the token (ui.md): the game's token stored on this device, and a share link's
 * token (#token=… in the address) taken only once the service has accepted it as this game's.
 *
 * The proof is POST /table/<id>/share, which answers 200 only with one of this game's live tokens
 * (never with the club key, another game's token or a revoked one) and records nothing. A link
 * with a token that is refused leaves the stored token as it was; a fragment that cannot be
 * decoded (#token=%E0%A4%A) is ignored. */
import {K, gameId} from "./state.js";

/* The token in the address's fragment: {token}, {malformed: true}, or null when there is none.
 * The fragment is removed from the address bar either way, so it is not bookmarked by accident. */
export function fragmentToken() {
  var match = /(?:^#|&)token=([^&]*)/.exec(window.location.hash || "");
  if (!match) { return null; }
  if (window.history && window.history.replaceState) {
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  var token;
  try { token = decodeURIComponent(match[1]).trim(); } catch (e) { return {malformed: true}; }
  return token ? {token: token} : {malformed: true};
}

/* Resolves to {token, note, unconfirmed}: the token to record with, a sentence for the alert line
 * ("" when all is well) and whether the token still awaits the service's word (a link opened
 * while the service could not be reached, on a device that held no token: it is stored once a
 * write with it is accepted). */
export function chooseToken() {
  var stored = K.tokens.get(gameId);
  var found = fragmentToken();
  var keeps = stored ? " This device keeps the token it holds." : "";
  if (!found || found.token === stored) { return Promise.resolve({token: stored, note: "", unconfirmed: false}); }
  if (found.malformed) {
    return Promise.resolve({token: stored, note: "The link's token could not be read, so it was ignored." + keeps, unconfirmed: false});
  }
  return K.api("POST", "/table/" + encodeURIComponent(gameId) + "/share", {token: found.token, body: {}}).then(function (answer) {
    if (answer.status === 200) {
      K.tokens.set(gameId, found.token);
      return {token: found.token, note: "", unconfirmed: false};
    }
    var detail = (answer.body && answer.body.detail) || ("The service answered " + answer.status + ".");
    if (answer.status >= 500 && !(answer.body && answer.body.code === "record_damaged")) { return unchecked(); }
    return {token: stored, note: "The link's token was not taken: " + detail + keeps, unconfirmed: false};
  }, unchecked);

  function unchecked() {
    if (!stored) { return {token: found.token, note: "", unconfirmed: true}; }
    return {token: stored, unconfirmed: false,
            note: "The link's token could not be checked: the service cannot be reached. Open the link again when it answers." + keeps};
  }
}
