export declare const REQUIRED: Array<{ pkg: string; binary: string }>;
export declare const INSTALL_ARGS: string[];
export declare function missingPackages(isExecutable?: (path: string) => boolean): string[];
export declare function notRootMessage(missing: string[]): string;
