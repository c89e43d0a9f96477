export const PACKAGE_NAME = '@baton/manifest';
