export const PACKAGE_NAME = '@baton/runner';
