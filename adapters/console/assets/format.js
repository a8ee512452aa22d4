// How the console shows ids and times: whole ids with a copy button; a pickup in its own place's zone with the
// zone's abbreviation, and UTC on hover.
import { h } from "./dom.js";

/** A whole id (never cut) with a button that copies it. */
export function fullId(id, label = "id") {
  const button = h("button", { type: "button", class: "copy", "aria-label": `Copy ${label} ${id}`, title: "Copy" }, "Copy");
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(id);
      button.textContent = "Copied";
    } catch {
      // No clipboard (an insecure origin): select the id for a manual copy.
      const range = document.createRange();
      range.selectNodeContents(text);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      button.textContent = "Selected";
    }
    setTimeout(() => (button.textContent = "Copy"), 1500);
  });
  const text = h("code", { class: "id" }, id);
  return h("span", { class: "idbox" }, text, " ", button);
}

const utc = (unix) => new Date(unix * 1000).toISOString().slice(0, 16).replace("T", " ") + " UTC";

/** Unix seconds in the IANA zone `zone` ("Dec 3, 2027, 6:45 PM EST"); UTC when the browser does not know the zone. */
export function zonedText(unix, zone) {
  const options = { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short" };
  try {
    return new Intl.DateTimeFormat("en-US", { ...options, timeZone: zone || "UTC" }).format(new Date(unix * 1000));
  } catch {
    return utc(unix);
  }
}

/** A <time> of Unix seconds shown in `zone`, with UTC on hover (title) and the instant in `datetime`. */
export function zonedTime(unix, zone) {
  if (unix == null) return "";
  const iso = new Date(unix * 1000).toISOString();
  return h("time", { datetime: iso, title: `${utc(unix)}${zone ? ` · ${zone}` : ""}` }, zonedText(unix, zone));
}
