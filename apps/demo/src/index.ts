export { renderReportHtml } from "./report-html.js";
