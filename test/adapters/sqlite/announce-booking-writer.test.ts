import { describeAnnouncements } from "../../support/announcements";

describeAnnouncements("booking writer");
