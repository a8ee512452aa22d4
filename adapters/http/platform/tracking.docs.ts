// The OpenAPI prose of GNet's position pulls (platform/tracking.ts).

const tags = ["Tracking"];

const pullNote =
  "Either party of the booking (`token` header). 404 NO_POSITION before any position; for the requester once " +
  "the trip is COMPLETE or ended 404 POSITION_PRIVATE, saying so (the provider still sees it); anyone else and an " +
  "unknown booking get the same 404 as for a booking lookup.";

export const byTransactionIdDoc = {
  tags,
  summary: "The chauffeur's last position, by transactionId",
  description: pullNote,
};

export const byResNoDoc = {
  tags,
  summary: "The chauffeur's last position, by a party's reservation number",
  description: `\`netid\` is either party's netid and \`resNo\` that party's reservation number. ${pullNote}`,
};

export const byResNoArrayDoc = {
  tags,
  summary: "The chauffeurs' last positions of several bookings",
  description:
    `One entry (with its \`resNo\`) for each booking that has a position to show; bookings without ` +
    `one, or not yours, are left out; 404 when none has. ${pullNote}`,
};
