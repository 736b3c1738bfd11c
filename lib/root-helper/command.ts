/**
 * The bundle's commands for the root helper: the service (`root-helper`) and the one-shot call
 * certbot's deploy hook makes (`root-call`). Their own module, so the server's start loads none of the helper.
 */
export const ROOT_HELPER_COMMAND = 'root-helper';
export const ROOT_CALL_COMMAND = 'root-call';
export const isRootHelperCommand = (command: string | undefined): boolean => command === ROOT_HELPER_COMMAND || command === ROOT_CALL_COMMAND;
