export const PACKAGE_NAME = '@baton/demo';
