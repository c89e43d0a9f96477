export const PACKAGE_NAME = '@baton/tracing';
