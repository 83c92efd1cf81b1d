/** Why a remote document was not taken (shown in logs and to the API as the 422/404 reason). */
export class RejectedDocument extends Error {}
