import { describeAnnouncements } from "../../support/announcements";

describeAnnouncements("own connection");
