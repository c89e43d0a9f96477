export const PACKAGE_NAME = '@baton/cli';
