/** The company behind each authenticated request, for the request log line. */
export const companyOfRequest = new WeakMap<Request, string>();
