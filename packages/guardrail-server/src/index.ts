export const PACKAGE_NAME = '@baton/guardrail-server';
