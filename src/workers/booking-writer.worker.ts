/// <reference lib="webworker" />
// Worker entry point: the booking writer (adapters/sqlite/booking-writer-thread.ts).
import { serveBookingWriter } from "../../adapters/sqlite/booking-writer-thread";

serveBookingWriter();
