/** `production` reads the proxy's certificate headers; `development` treats every caller as admin. */
export type Mode = 'development' | 'production';
