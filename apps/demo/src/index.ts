export { renderReportHtml } from './report-html.js';
export type { ReportModel, TimelineEvent, PacketEntry, SummaryEntry, TimelineKind } from './report-model.js';
export { runDemo, DEMO_INPUT, type DemoOptions, type DemoResult } from './demo.js';
