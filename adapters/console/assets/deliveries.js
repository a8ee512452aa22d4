// The Deliveries page: the webhook delivery log, a test event, and what each attempt sent and got back.
import { h, showError, statusLine, when } from "./dom.js";
import * as api from "./api.js";

const PAGE = 50;

/** Unix seconds → "2027-01-15 08:00:05 UTC": attempts and retries are seconds apart. */
const at = (unix) => new Date(unix * 1000).toISOString().slice(0, 19).replace("T", " ") + " UTC";

/** "in 42 s", "in 3 min", or "due now" for a time already passed. */
function fromNow(unix) {
  const s = Math.round(unix - Date.now() / 1000);
  return s <= 0 ? "due now" : s < 120 ? `in ${s} s` : `in ${Math.round(s / 60)} min`;
}

/** Headers as "name: value" lines, one per line. */
const headerLines = (headers) =>
  Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join("\n");

/** A JSON text pretty-printed when it parses, else as it is. */
function pretty(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** One attempt: the request headers sent, and the answer (status, first 4 KiB, time) or why there was none. */
function attemptView(a, n) {
  return h(
    "section",
    { class: "card attempt", "aria-label": `Attempt ${n}` },
    h("h3", {}, `Attempt ${n} · ${at(a.at)} · ${a.durationMs} ms`),
    a.error ? h("p", { class: "error" }, a.error) : null,
    h(
      "div",
      { class: "cols" },
      h(
        "div",
        {},
        h("h4", {}, "Request headers"),
        a.request
          ? h("pre", { class: "exchange", "aria-label": "Request headers" }, headerLines(a.request.headers))
          : h("p", { class: "muted" }, "Nothing was sent."),
      ),
      h(
        "div",
        {},
        h("h4", {}, a.response ? `Answer: HTTP ${a.response.status}` : "Answer"),
        a.response
          ? [
              h("pre", { class: "exchange", "aria-label": "Answer body" }, a.response.body || "(empty body)"),
              a.response.truncated ? h("small", { class: "muted" }, "First 4 KiB shown; the answer was longer.") : null,
            ]
          : h("p", { class: "muted" }, "No answer came."),
      ),
    ),
  );
}

/** A delivery's detail: its state, next retry, the body sent and each recorded attempt (newest first). */
function detailView(d, onClose) {
  const total = d.attemptLog.length;
  return h(
    "section",
    { class: "card delivery", "aria-labelledby": "delivery-title" },
    h(
      "div",
      { class: "toolbar delivery-head" },
      h("h2", { id: "delivery-title" }, `Delivery ${d.id}: ${d.eventType}`),
      h("button", { type: "button", onClick: onClose }, "Close details"),
    ),
    h(
      "dl",
      { class: "facts" },
      h("div", {}, h("dt", {}, "Status"), h("dd", {}, h("span", { class: `badge d-${d.status}` }, d.status))),
      h("div", {}, h("dt", {}, "Event id"), h("dd", {}, h("code", {}, d.eventId))),
      h("div", {}, h("dt", {}, "URL"), h("dd", {}, h("code", {}, d.url))),
      h("div", {}, h("dt", {}, "Attempts"), h("dd", {}, String(d.attempts))),
      h(
        "div",
        {},
        h("dt", {}, "Next retry"),
        h(
          "dd",
          { "data-testid": "next-retry" },
          d.nextRetryAt ? `${at(d.nextRetryAt)} (${fromNow(d.nextRetryAt)})` : d.status === "pending" ? "Not attempted yet" : "None",
        ),
      ),
      d.deliveredAt ? h("div", {}, h("dt", {}, "Delivered"), h("dd", {}, when(d.deliveredAt))) : null,
    ),
    h("h3", {}, "Request body"),
    h("pre", { class: "exchange", "aria-label": "Request body" }, pretty(d.body)),
    total ? d.attemptLog.map((a, i) => attemptView(a, d.attempts - i)) : h("p", { class: "muted" }, "No attempt recorded yet."),
  );
}

export async function deliveriesPage(main) {
  const status = statusLine();
  const list = h("div", { class: "tablebox" });
  const detail = h("div");
  let offset = 0;

  async function show(id) {
    try {
      const d = (await api.core("GET", `/api/webhooks/deliveries/${id}`)).data;
      detail.replaceChildren(detailView(d, () => detail.replaceChildren()));
      detail.querySelector("h2")?.focus?.();
    } catch (error) {
      showError(detail, error);
    }
  }

  const test = h(
    "button",
    {
      type: "button",
      class: "primary",
      onClick: async () => {
        test.disabled = true;
        status.replaceChildren("Sending a test event…");
        try {
          const d = (await api.core("POST", "/api/webhooks/test")).data;
          if (d.status === "delivered") status.textContent = `Test event delivered (HTTP ${d.lastStatus}).`;
          else showError(status, { message: `Test event not delivered yet: ${d.lastError ?? "waiting for its first attempt"}.` });
          detail.replaceChildren(detailView(d, () => detail.replaceChildren()));
          offset = 0;
          await load();
        } catch (error) {
          showError(status, error);
        } finally {
          test.disabled = false;
        }
      },
    },
    "Send test event",
  );

  async function load() {
    const data = (await api.core("GET", `/api/webhooks/deliveries?limit=${PAGE}&offset=${offset}`)).data;
    list.replaceChildren(
      h(
        "table",
        { "aria-label": "Deliveries" },
        h("caption", {}, `${data.total} webhook deliveries, newest first`),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["Created", "Event", "Booking", "Status", "Attempts", "Last answer", "Delivered / next retry", ""].map((c) => h("th", { scope: "col" }, c)),
          ),
        ),
        h(
          "tbody",
          {},
          data.items.map((d) =>
            h(
              "tr",
              {},
              h("td", {}, when(d.createdAt)),
              h("td", {}, d.eventType, h("br"), h("small", { class: "muted" }, d.eventId)),
              h(
                "td",
                {},
                // The whole booking id (never cut): the one to search for and to quote to a partner.
                d.transactionId
                  ? h("a", { href: `#/bookings/${d.transactionId}`, class: "booking-id" }, h("code", { class: "id" }, d.transactionId))
                  : h("span", { class: "muted" }, "test event"),
              ),
              h("td", {}, h("span", { class: `badge d-${d.status}` }, d.status)),
              h("td", { class: "num" }, d.attempts),
              h("td", {}, d.lastStatus ?? "", d.lastError ? h("div", { class: "muted" }, d.lastError) : null),
              h("td", {}, d.deliveredAt ? when(d.deliveredAt) : d.nextRetryAt ? h("span", {}, "retry ", when(d.nextRetryAt)) : ""),
              h(
                "td",
                { class: "actions" },
                h("button", { type: "button", "aria-label": `Details of ${d.eventType} ${d.eventId}`, onClick: () => show(d.id) }, "Details"),
                " ",
                h(
                  "button",
                  {
                    type: "button",
                    "aria-label": `Replay ${d.eventType} ${d.eventId}`,
                    onClick: async () => {
                      try {
                        await api.core("POST", `/api/webhooks/deliveries/${d.id}/replay`);
                        status.textContent = `Replaying ${d.eventType} (same event id ${d.eventId}).`;
                        setTimeout(load, 500);
                      } catch (error) {
                        showError(status, error);
                      }
                    },
                  },
                  "Replay",
                ),
              ),
            ),
          ),
        ),
      ),
      h(
        "div",
        { class: "toolbar" },
        h("button", { type: "button", disabled: offset === 0, onClick: () => ((offset = Math.max(0, offset - PAGE)), load()) }, "Previous page"),
        h("button", { type: "button", disabled: offset + PAGE >= data.total, onClick: () => ((offset += PAGE), load()) }, "Next page"),
        h("button", { type: "button", onClick: load }, "Refresh"),
      ),
    );
  }
  main.replaceChildren(
    h("h1", {}, "Deliveries"),
    h(
      "p",
      { class: "muted" },
      "Webhooks sent to your webhook URL. Details show what each attempt sent and what came back; Replay sends one again with the same event id.",
    ),
    h("div", { class: "toolbar" }, test, h("small", { class: "muted" }, "Sends a signed ping to your webhook URL (at most 10 an hour).")),
    status,
    detail,
    list,
  );
  await load();
}
